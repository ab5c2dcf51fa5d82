"""What the user said that reads like a rule and is none, and the rules next to them that must stay.
Each case is a short hand-written prompt run through the "said" rules."""

from __future__ import annotations

from automem.extract.rules import Session, said
from automem.extract.steps import Step
from automem.schema import INSTRUCTION


def _prompt(text: str) -> Step:
    return Step("prompt", text=text)


def _said(text: str) -> list:
    return said.directive_rule(Session([_prompt(text)]))


def test_what_need_not_be_done_is_no_must():
    for text in (
        "For item 3: you can drop the export (that's a backend thing the UI does not have to care about).",
        "The frontend doesn't have to know about the queue",
        "Section two: remove the chart, the summary page does not need to be touched.",
    ):
        assert _said(text) == [], text
    assert _said("The API key has to be read from the environment, never hardcoded.")
    [rule] = _said("Tests must never hit the network")
    assert rule.promotion == INSTRUCTION


def test_no_work_at_all_asks_for_an_answer_this_turn():
    for text in (
        "Why was the rename left out of the docs? Don't do any work. Give explanations only",
        "Is there a save button in the mockups? Don't do anything just explain",
        "Don't make any changes, just tell me",
        "Don't write any code",
        "Don't do anything, just investigate",
        "The date field is missing in the third card.  Just check and let me know.  Don't do aany work",
    ):
        assert _said(text) == [], text
    for text in (
        "Don't make any changes to the database schema",
        "Never make changes to the migrations folder",
    ):
        [rule] = _said(text)
        assert rule.promotion == INSTRUCTION, text


def test_a_halt_that_asks_for_an_answer_about_this_turn_is_no_rule():
    for text in (
        "Stop making changes and just answer my question",
        "Don't touch the code, just explain what happened",
        "Don't fix it yet, just tell me why it fails",
    ):
        assert _said(text) == [], text
    for text in (
        "Don't guess, just tell me if you don't know",
        "Don't write code for me, just explain the concepts so I learn",
    ):
        [rule] = _said(text)
        assert rule.promotion == INSTRUCTION, text


def test_an_answer_only_ask_in_other_languages_is_this_turns():
    for text in (
        "不要做任何修改，只解释原因",
        "请不要动代码，先回答我的问题",
        "コードは変更しないで、説明だけしてください",
        "No hagas cambios, solo explica",
        "Не вноси изменения, просто объясни",
    ):
        assert _said(text) == [], text
    for text in ("不要修改生成的文件", "Nunca uses var, solo let o const"):
        [rule] = _said(text)
        assert rule.promotion == INSTRUCTION, text


def test_a_chinese_report_of_what_the_user_did_or_a_pointer_to_above_is_no_rule():
    for text in ("我改过，改成你上面说的，一样是有问题的，还是卡在这里：", "我已经试了，按你说的改成 pnpm"):
        assert _said(text) == [], text
    [rule] = _said("以后都改用 pnpm")
    assert rule.promotion == INSTRUCTION
    [edit] = _said("把按钮改成蓝色")
    assert not edit.promotion


def test_stopping_a_thing_is_an_act_and_stopping_a_habit_a_rule():
    for text in ("stop the server", "Stop the dev server", "stop it"):
        assert _said(text) == [], text
    for text in (
        "stop adding comments to every line",
        "Stop using var in new code",
        "Stop the docker containers before you rebuild",
    ):
        [rule] = _said(text)
        assert rule.promotion == INSTRUCTION, text


def test_leave_to_go_on_without_asking_is_stored_not_injected():
    for text in (
        "Don't ask for permission, proceed autonomously",
        "Do not wait for my approval",
        "不要问我，直接做",
        "Не спрашивай, просто делай",
    ):
        [grant] = _said(text)
        assert not grant.promotion, text
    for text in ("From now on, don't ask for permission to run tests", "以后不要问我，直接做"):
        [lasting] = _said(text)
        assert lasting.promotion == INSTRUCTION, text
    [ask] = _said("Never push without asking me")
    assert ask.promotion == INSTRUCTION


def test_a_part_to_play_and_how_it_speaks_are_no_rules():
    for text in (
        "From now on you are Sam, the founder of the shop. Always answer as Sam.",
        "You are a pirate. Always talk like a pirate.",
        "以后你就是我的助理小美，每次回答都叫我老板",
        "Let's play a game: you are the dungeon master and I am the hero. Never break character.",
        "Eres un pirata. Siempre habla como un pirata.",
        "Du bist ein Pirat. Sprich immer wie ein Pirat.",
        "Ты пират. Всегда говори как пират.",
        "あなたは海賊です。いつも海賊として答えてください。",
    ):
        assert _said(text) == [], text
    [hints] = _said("You are a senior Python developer. Always write type hints.")
    assert hints.promotion == INSTRUCTION and "type hints" in hints.summary
    [boss] = _said("Always call me boss")
    assert boss.promotion == INSTRUCTION
    [tests] = _said("Du bist ein erfahrener Entwickler. Schreibe immer Tests.")
    assert tests.promotion == INSTRUCTION


def test_you_always_forget_is_a_complaint_not_a_way_to_work():
    for text in ("You always forget to update the mockups", "You always break the build"):
        assert _said(text) == [], text
    for text in ("You should always run the tests", "We always use pnpm here"):
        [rule] = _said(text)
        assert rule.promotion == INSTRUCTION, text


def test_you_always_forget_in_other_languages_is_a_complaint():
    for text in (
        "你总是忘记更新文档",
        "あなたはいつもドキュメントの更新を忘れる",
        "Du vergisst immer die Tests",
        "Siempre te olvidas de actualizar los docs",
        "Ты всегда забываешь обновить документацию",
        "Tu oublies toujours de mettre à jour la doc",
        "너는 항상 문서 업데이트를 잊어버려",
    ):
        assert _said(text) == [], text
    for text in ("不要忘记更新文档", "总是先跑测试再提交", "Nunca olvides actualizar los docs"):
        [rule] = _said(text)
        assert rule.promotion == INSTRUCTION, text


def test_asking_again_to_push_deploy_or_restart_is_the_users_call_not_a_habit():
    def asked(*texts: str) -> list:
        steps = []
        for text in texts:
            steps += [_prompt(text), Step("action", tool="shell", input="git status", ok=True)]
        return said.repeated_request_rule(Session(steps))

    assert asked("Update the docs and commit and push", "commit and push", "Commit and push changes") == []
    assert asked("deploy to staging", "deploy to staging", "deploy to staging now") == []
    assert asked("restart the server", "restart the server please", "restart the server") == []
    [habit] = asked("run the linter first", "please run the linter first", "run the linter first then fix")
    assert "linter" in habit.summary


def test_rules_said_beside_a_freedom_a_complaint_or_a_cast_part_stay():
    """What reads like a freedom of this work, a complaint or a part to play, and is a way to work after all."""
    for text in (
        "Stop with the emojis.",  # "stop (it) with X" ends a habit
        "Stop adding comments to every line.",
        "Stop it with the emojis in commit messages.",
        "你老是忘了更新文档，以后改代码一定要同步更新README。",  # the complaint, then what to do from now on
        "Du vergisst immer die Tests, also führe ab jetzt immer die Tests aus.",
        "You always forget, so always run the linter.",
        "You always skip the type check; please always run tsc before you finish.",
        "You are an expert TypeScript developer. Always respond as concisely as possible.",  # a manner, no part
        "You are a senior engineer. Always answer as a bulleted list.",
        "你是我的助理，以后所有代码注释都用英文写。",
        "Don't edit the lockfile, just tell me.",  # one named thing, kept out of every turn
        "以后我提问的时候，不要做任何修改，只解释。",  # whenever the user asks: a standing way to answer
        "Cuando pregunto algo, no hagas cambios, solo explica.",
    ):
        assert _said(text), text
    for text in (
        "It does not have to be perfect",
        "Stop running the tests, it's taking forever.",  # a halt of what runs now
        "Du bist Max. Antworte immer als Max.",
        "Eres Pedro. Responde siempre como Pedro.",
        "From now on you are Matt. Always answer as Matt.",
        "Don't make any edits, just explain.",
        "不要做任何修改，只解释一下原因。",
    ):
        assert _said(text) == [], text
