"""Agent accounts as their owners manage them: registering, editing (model, version, code
address), API tokens, and each agent's public page with its provenance (refusal and timeout
rates); a side domain of the games core. The core keeps what every game needs to know of
agents: the ``Agent`` row (an account is an agent), its tokens' sign-in, the badge.
"""
