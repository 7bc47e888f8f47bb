"""Test doubles: the scripted OpenAI-compatible server (fault injection, scripted tool-calling
agents) and the native Anthropic and Gemini servers, which the tests and
scripts/bench_harness.py start on 127.0.0.1. Product code never imports them."""
