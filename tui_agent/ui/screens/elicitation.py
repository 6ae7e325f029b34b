"""Provides `ElicitationScreen`: an MCP server's request for the user's input, as a form (or a page to visit).

A form has one input per field the server asks for — text, a number, a yes/no checkbox or a choice — marked
`*` when required; Enter in a field or "Submit" sends it (checked first: a missing or malformed value is said
under the form, which stays open). "Decline" says no; Esc cancels. A request to visit a page shows the address
(revealed: no hidden characters) and opens it in the browser only when the user chooses to.
"""

from __future__ import annotations

import webbrowser

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Checkbox, Input, Select, Static

from tui_agent.agent.records import Answer, Field, Question, values_of
from tui_agent.sanitize import reveal

FieldWidget = Input | Checkbox | Select[str]


class ElicitationScreen(ModalScreen[Answer]):
    """Asks the user what a server wants to know; dismisses with the answer."""

    DEFAULT_CSS = """
    ElicitationScreen { align: center middle; }
    ElicitationScreen > Vertical {
        width: 80%; max-width: 90; height: auto; max-height: 90%;
        border: thick $accent; background: $surface; padding: 1 2;
    }
    ElicitationScreen #elicit-fields { height: auto; max-height: 20; margin: 1 0; }
    ElicitationScreen .elicit-about { color: $text-muted; }
    ElicitationScreen #elicit-problem { color: $text-error; height: auto; }
    ElicitationScreen #elicit-buttons { height: auto; align-horizontal: center; }
    ElicitationScreen #elicit-buttons Button { margin: 0 1; }
    """
    BINDINGS = [Binding("escape", "answer('cancel')", "Cancel", id="elicit.cancel")]

    def __init__(self, question: Question) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        question = self.question
        with Vertical() as box:
            box.border_title = Content(f"{reveal(question.server)} asks")
            yield Static(Content(reveal(question.message)), id="elicit-message")
            if question.url is not None:
                yield Static(Content.assemble("Page: ", (reveal(question.url), "bold")), id="elicit-url")
            else:
                with VerticalScroll(id="elicit-fields"):
                    for field in question.fields:
                        yield Static(Content.assemble((reveal(field.title), "bold"), " *" if field.required else ""))
                        if field.description:
                            yield Static(Content(reveal(field.description)), classes="elicit-about")
                        yield field_widget(field)
            yield Static("", id="elicit-problem")
            with Horizontal(id="elicit-buttons"):
                submit = "Open the page" if question.url is not None else "Submit"
                yield Button(submit, id="accept", variant="success")
                yield Button("Decline", id="decline", variant="error")
                yield Button("Cancel (Esc)", id="cancel")

    def on_mount(self) -> None:
        widgets = self.query(".elicit-field")
        (widgets.first() if widgets else self.query_one("#accept", Button)).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.action_answer(event.button.id or "cancel")

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        self.action_answer("accept")

    def action_answer(self, action: str) -> None:
        if action == "decline":
            self.dismiss(Answer("decline"))
        elif action != "accept":
            self.dismiss(Answer("cancel"))
        elif self.question.url is not None:
            webbrowser.open(self.question.url)
            self.dismiss(Answer("accept"))
        else:
            values = values_of(self.question, self.typed())
            if isinstance(values, str):
                self.query_one("#elicit-problem", Static).update(values)
            else:
                self.dismiss(Answer("accept", values))

    def typed(self) -> dict[str, str | bool | None]:
        """What the user put in each field, by the field's name."""
        typed: dict[str, str | bool | None] = {}
        for widget in self.query(".elicit-field"):
            name = widget.name or ""
            if isinstance(widget, Input):
                typed[name] = widget.value
            elif isinstance(widget, Checkbox):
                typed[name] = widget.value
            elif isinstance(widget, Select):
                typed[name] = None if widget.value is Select.BLANK else str(widget.value)
        return typed


def field_widget(field: Field) -> FieldWidget:
    """The input for one field (its name is the field's, to read it back)."""
    default = field.default
    if field.kind == "boolean":
        return Checkbox(reveal(field.title), bool(default), name=field.name, classes="elicit-field")
    if field.kind == "choice":
        options = [(reveal(choice), choice) for choice in field.choices]
        select: Select[str] = Select(options, allow_blank=not field.required, name=field.name, classes="elicit-field")
        if default is not None and str(default) in field.choices:
            select.value = str(default)
        return select
    kind = {"integer": "integer", "number": "number"}.get(field.kind, "text")
    value = "" if default is None else str(default)
    return Input(value, type=kind, name=field.name, classes="elicit-field")  # type: ignore[arg-type]
