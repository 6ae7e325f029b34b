"""The tutorial's structure on our commander, with a scripted stand-in for the model.

ChatJob → ResponseJob → a response handler forking a user handler and a tool handler; the tool
handler loops by putting the next ResponseJob; an `at_job_end` callback starts the next turn; typing
"exit" ends the commander with "QUIT". Written with the Agere-compatible surface only.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

from tui_agent.commander import PASS_WORD, CommanderAsync, Job, handler, tasker

Chunk = dict[str, Any]


def scripted_model(context: list[dict[str, Any]]) -> Iterator[Chunk]:
    """A stand-in model: asks for the weather tool when the user mentions weather, else echoes."""
    last = context[-1]
    if last["role"] == "tool":
        yield {"text": f"It is {json.loads(last['content'])['temperature']} degrees."}
    elif "weather" in last["content"]:
        yield {"text": "Let me check. "}
        yield {"tool_call": {"id": "call_1", "name": "get_current_weather", "arguments": {"location": "Paris"}}}
    else:
        for word in ("You ", "said: ", last["content"]):
            yield {"text": word}


def get_current_weather(location: str) -> str:
    return json.dumps({"location": location, "temperature": 22})


async def split_roles(response: Iterator[Chunk]) -> tuple[AsyncIterator[str], AsyncIterator[dict[str, Any]]]:
    """Fork one response into a text stream and a tool-call stream (the dispatcher's job, simplified)."""
    text_queue: asyncio.Queue[str | None] = asyncio.Queue()
    call_queue: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
    for chunk in response:
        if "text" in chunk:
            text_queue.put_nowait(chunk["text"])
        else:
            call_queue.put_nowait(chunk["tool_call"])
    text_queue.put_nowait(None)
    call_queue.put_nowait(None)

    async def drain(queue: asyncio.Queue[Any]) -> AsyncIterator[Any]:
        while (item := await queue.get()) is not None:
            yield item

    return drain(text_queue), drain(call_queue)


class Conversation:
    """What the tutorial keeps in module globals: the prompts typed, what was printed, the context."""

    def __init__(self, prompts: list[str]) -> None:
        self.prompts = prompts
        self.printed: list[str] = []
        self.context: list[dict[str, Any]] = []

    def input(self) -> str:
        return self.prompts.pop(0)


class ChatJob(Job):
    def __init__(self, chat: Conversation) -> None:
        self.chat = chat
        super().__init__()

    @tasker(PASS_WORD)
    async def task(self) -> None:
        response = scripted_model(self.chat.context)
        job = ResponseJob(response=response, chat=self.chat)
        job.add_callback_functions(
            which="at_job_end",
            functions_info={"function": self.new_chat_callback, "inject_task_node": True},
        )
        await self.put_job(job)

    async def new_chat_callback(self, task_node: Job) -> None:
        prompt = self.chat.input()
        if prompt == "exit":
            await self.exit_commander(return_result="QUIT")
            return
        self.chat.context.append({"role": "user", "content": prompt})
        await task_node.put_job(job=ChatJob(self.chat), parent=task_node.commander)


class ResponseJob(Job):
    def __init__(self, response: Iterator[Chunk], chat: Conversation) -> None:
        super().__init__()
        self.response = response
        self.chat = chat

    @tasker(PASS_WORD)
    async def task(self) -> Any:
        return ResponseHandler(self.chat).handle_response(response=self.response)


class ResponseHandler:
    def __init__(self, chat: Conversation) -> None:
        self.chat = chat

    @handler(PASS_WORD)
    async def handle_response(self, self_handler: Any, response: Iterator[Chunk]) -> None:
        to_user, tool_calls = await split_roles(response)
        self_handler.call_handler(OpenaiHandler(self.chat).user_handler(user_gen=to_user))
        self_handler.call_handler(OpenaiHandler(self.chat).function_call_handler(function_call_gen=tool_calls))


class OpenaiHandler:
    def __init__(self, chat: Conversation) -> None:
        self.chat = chat

    @handler(PASS_WORD)
    async def user_handler(self, self_handler: Any, user_gen: AsyncIterator[str]) -> None:
        parts = [part async for part in user_gen]
        if parts:
            self.chat.printed.append("".join(parts))
            self.chat.context.append({"role": "assistant", "content": "".join(parts)})

    @handler(PASS_WORD)
    async def function_call_handler(self, self_handler: Any, function_call_gen: AsyncIterator[dict[str, Any]]) -> None:
        calls = [call async for call in function_call_gen]
        if not calls:
            return
        self.chat.context.append({"role": "assistant", "content": None, "tool_calls": calls})
        for call in calls:
            result = get_current_weather(**call["arguments"])
            self.chat.context.append({"role": "tool", "tool_call_id": call["id"], "content": result})
        response = scripted_model(self.chat.context)
        await self_handler.put_job(ResponseJob(response=response, chat=self.chat))


def test_three_turns_with_a_tool_loop_then_quit() -> None:
    chat = Conversation(prompts=["what is the weather in Paris?", "thanks", "exit"])
    chat.context.append({"role": "user", "content": "hello"})
    out = CommanderAsync[str]().run(ChatJob(chat))
    assert out == "QUIT"
    assert chat.printed == ["You said: hello", "Let me check. ", "It is 22 degrees.", "You said: thanks"]
    assert chat.prompts == []
    roles = [message["role"] for message in chat.context]
    assert roles == ["user", "assistant", "user", "assistant", "assistant", "tool", "assistant", "user", "assistant"]


async def test_the_same_loop_runs_inside_a_running_event_loop() -> None:
    chat = Conversation(prompts=["again", "exit"])
    chat.context.append({"role": "user", "content": "hi"})
    out = await CommanderAsync[str]().run_async(ChatJob(chat))
    assert out == "QUIT"
    assert chat.printed == ["You said: hi", "You said: again"]
