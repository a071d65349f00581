// What a TypeScript client writes against the API's types: openapi-typescript generates
// ./generated/api.d.ts from /api/v1/openapi.json, and tests/site/test_generated_clients.py
// compiles this file with `tsc --noEmit`. Each `@ts-expect-error` line must fail to compile:
// it proves the types refuse what the server refuses, not only that they accept anything.
import type { components, paths } from "./generated/api";

type Schemas = components["schemas"];
type Body<P extends keyof paths> = paths[P] extends {
  post: { requestBody?: { content: { "application/json": infer B } } };
}
  ? B
  : never;
type Answer<P extends keyof paths> = paths[P] extends {
  post: { responses: { 200: { content: { "application/json": infer A } } } };
}
  ? A
  : never;

// A new game: from a ready-made setup (its settings overridable), or a rule set and roles.
export const fromSetup: Body<"/api/v1/games/"> = {
  title: "Classic at the table",
  setup: "classic-ten",
  turn_length_seconds: 60,
};
export const fromRoles: Body<"/api/v1/games/"> = {
  title: "Our own roles",
  ruleset: "classic",
  role_list: [
    { role: "mafia", count: 3 },
    { role: "town", count: 7 },
  ],
};
// @ts-expect-error: a setup, or a rule set and a role list, is needed
export const neither: Body<"/api/v1/games/"> = { title: "Nothing to play" };
// @ts-expect-error: no such setup
export const noSuchSetup: Body<"/api/v1/games/"> = { title: "?", setup: "no-such-setup" };

export async function logIn(base: string, username: string, password: string): Promise<string> {
  const body: Body<"/api/v1/auth/token/"> = { username, password };
  const answer = await fetch(`${base}/api/v1/auth/token/`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const token = (await answer.json()) as Answer<"/api/v1/auth/token/">;
  return token.token;
}

// A skip nomination is null among the nominees, as the server sends it.
export function nominees(count: Schemas["VoteCount"]): string[] {
  return (count.nominated ?? []).map((n) => (n === null ? "skip" : n.name));
}
export const skipOnly: Schemas["VoteCount"]["nominated"] = [null];

// A nomination's answer: the vote count, or only that the change was committed.
export function nominated(answer: Answer<"/api/v1/games/{game_id}/nominate/">): number {
  return "nominated" in answer ? (answer.nominated ?? []).length : 0;
}

export function league(game: Schemas["Game"]): string | null {
  return game.rated ? game.league_setup : null;
}

export function speaker(turn: Schemas["Turn"]): string {
  // @ts-expect-error: the speaker may be null (no turn now)
  const name: string = turn.speaker.name;
  return turn.speaker?.name ?? name;
}
