"""A stand-in for an OpenAI-compatible chat server, for offline runs of an LLM agent.

``POST /v1/chat/completions`` answers in the OpenAI wire format (``choices``, ``usage``)
without any model: a question that ends "Answer with one name from: A, B, C." is answered
with one of the names (at random from a seed, so runs repeat; or, with ``choose="first"``,
always the first: a table that follows one wagon, for quick games), anything else with a short
line of table talk kept within "at most N words" when the prompt says so. ``usage``
counts tokens as about four characters each, so token and cost logs have numbers to show.
``GET /v1/models`` lists the one model. A ``script`` (prompt -> answer) replaces the
answers, for tests.

    python -m mafia_client.standin --port 8080
    OPENAI_BASE_URL=http://127.0.0.1:8080/v1 OPENAI_MODEL=stand-in \\
        python client/examples/llm_agent.py ...

``client/examples/llm_agent.py --stand-in`` starts one in its own process instead.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import random
import re
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

MODEL = "stand-in"
CHOOSE = ("random", "first")
CHOICE = re.compile(r"Answer with one name from: (.+?)\.?\s*$", re.DOTALL)
LIMIT = re.compile(r"at most (\d+) words")
LINES = (
    "I am town. Let us look hard at whoever stays quiet today.",
    "Nothing solid yet, but the votes so far feel rushed to me.",
    "I would rather hear from the people who have not posted.",
    "My read is shifting; I will follow the strongest case.",
    "Someone is steering us away from the obvious wagon.",
)


def tokens(text: str) -> int:
    """About how many tokens ``text`` is (a model's tokenizer averages ~4 characters)."""
    return max(1, (len(text) + 3) // 4)


class StandInChat:
    """The stand-in server on ``host``:``port`` (0: a free one); ``url`` is its
    ``OPENAI_BASE_URL``; ``requests`` keeps each request's path, body and Authorization."""

    def __init__(
        self,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        seed: int | str | None = None,
        choose: str = "random",
        script: Callable[[str], str] | None = None,
    ) -> None:
        if choose not in CHOOSE:
            raise ValueError(f"choose is one of {', '.join(CHOOSE)}")
        self.requests: list[dict[str, Any]] = []
        self.choose = choose
        self.script = script
        self._random = random.Random(seed)
        self._lock = threading.Lock()  # one random stream, many request threads
        self.server = ThreadingHTTPServer((host, port), _handler(self))
        self.url = f"http://{host}:{self.server.server_address[1]}/v1"
        self._thread: threading.Thread | None = None

    def start(self) -> StandInChat:
        self._thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self._thread.start()
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()

    def __enter__(self) -> StandInChat:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def answer(self, prompt: str) -> str:
        """What the stand-in says to ``prompt`` (the last user message)."""
        if self.script is not None:
            return self.script(prompt)
        with self._lock:
            choice = CHOICE.search(prompt)
            if choice:
                names = [n.strip() for n in choice.group(1).split(",") if n.strip()]
                if not names:
                    return ""
                return names[0] if self.choose == "first" else self._random.choice(names)
            line = self._random.choice(LINES)
        limit = LIMIT.search(prompt)
        return " ".join(line.split()[: int(limit.group(1))]) if limit else line

    def completion(self, body: dict[str, Any]) -> dict[str, Any]:
        messages = body.get("messages") or [{}]
        prompt = str(messages[-1].get("content") or "")
        text = self.answer(prompt)
        asked = sum(tokens(str(m.get("content") or "")) for m in messages)
        said = tokens(text)
        return {
            "id": f"chatcmpl-standin-{len(self.requests)}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": body.get("model") or MODEL,
            "choices": [
                {
                    "index": 0,
                    "message": {"role": "assistant", "content": text},
                    "finish_reason": "stop",
                }
            ],
            "usage": {
                "prompt_tokens": asked,
                "completion_tokens": said,
                "total_tokens": asked + said,
            },
        }


def _handler(chat: StandInChat) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.rstrip("/").endswith("/models"):
                self._send(200, {"object": "list", "data": [{"id": MODEL, "object": "model"}]})
            else:
                self._send(404, {"error": {"message": "not found"}})

        def do_POST(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            try:
                body = json.loads(self.rfile.read(length) or b"{}")
            except ValueError:
                self._send(400, {"error": {"message": "the body is not JSON"}})
                return
            auth = self.headers.get("Authorization")
            chat.requests.append({"path": self.path, "body": body, "auth": auth})
            if not self.path.rstrip("/").endswith("/chat/completions"):
                self._send(404, {"error": {"message": "not found"}})
                return
            self._send(200, chat.completion(body))

        def _send(self, status: int, answer: dict[str, Any]) -> None:
            data = json.dumps(answer).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def log_message(self, format: str, *args: Any) -> None:
            pass  # a request log per decision would drown the agent's own

    return Handler


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=8080)
    parser.add_argument("--seed", help="repeat a run's answers")
    parser.add_argument("--choose", choices=CHOOSE, default="random", help="which option")
    args = parser.parse_args(argv)
    chat = StandInChat(host=args.host, port=args.port, seed=args.seed, choose=args.choose)
    print(f"OPENAI_BASE_URL={chat.url} OPENAI_MODEL={MODEL}", flush=True)
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C is how one stops it
        chat.server.serve_forever()
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
