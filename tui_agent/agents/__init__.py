"""Agents as data: profile files (persona, endpoint, tools, budgets, delegates) and team files (members, flow).

Nothing here runs a model; the agent package reads these to build turns, sub-agents and teams.
"""
