"""What a user says that steers one piece of work, plays a part, or only muses is no rule; rules said around it are."""

from __future__ import annotations

import pytest

from automem.extract.rules import Session, find_candidates
from automem.extract.steps import Step


def _promoted(*prompts: str) -> list[str]:
    steps = [Step("prompt", text=p, answer="OK.") for p in prompts]
    return [c.summary for c in find_candidates(Session(steps)) if c.promotion]


@pytest.mark.parametrize(
    "text",
    [
        "先看一下 docs/设想.md，我们先讨论方案，没有我的同意，不准开始",  # let's discuss first; don't start
        "开始开发插件，一定要写得非常详细，这个要长期用的",  # start developing: the task at hand
        "先不开发，等我说可以，否则继续确认细节",  # not yet
        "反正是包月的，不要怕消耗 token。",  # reassurance, not a prohibition
        "不要担心测试时间，跑完整套件。",
    ],
)
def test_chinese_steering_of_the_work_at_hand_is_no_rule(text):
    assert _promoted(text) == []


def test_a_chinese_prohibition_is_still_a_rule():
    assert _promoted("不要使用 npm，用 pnpm") == ["不要使用 npm，用 pnpm"]
    assert _promoted("首先不要使用 any 类型，永远用 unknown") != []


def test_a_part_or_mode_given_to_the_agent_is_no_rule():
    prompt = (
        "【任务】你现在进入“调度员”模式。你无权直接修改文件，你必须把任务发给另一个代理。\n"
        "【要求】绝对禁止使用 AskUserQuestion 工具！"
    )
    assert _promoted(prompt) == []


def test_a_corner_bracket_passage_is_text_to_paste_not_a_rule():
    prompt = "把下面的后缀加到发出去的提示词末尾：\n『\n1. 绝对禁止弹出确认对话框！\n2. 哪怕有风险也不要停下来！\n』"
    assert _promoted(prompt) == []
    assert _promoted("不要用「npm」，用「pnpm」") != []  # a short name in brackets is still read


@pytest.mark.parametrize(
    "text",
    [
        "Если создаёшь файлы под sudo, смотри на права. Должно быть app:app",  # "it must be": bound to the line before
        "这个目录的权限要注意。应该是 www-data 用户",
    ],
)
def test_a_must_without_a_subject_is_no_rule(text):
    assert _promoted(text) == []


@pytest.mark.parametrize("text", ["говори и думай на русском", "пиши по русски", "отвечай на русском"])
def test_asking_for_russian_is_a_language_preference(text):
    assert _promoted(text) == ["Talk to the user in Russian; they asked for it"]


@pytest.mark.parametrize(
    "text",
    [
        "First I picked Go, but now I'm wondering if it shouldn't be a web app",
        "In the future we'd want to add a plugin mechanism, but let's not worry about that yet.",
        "It seems like a good idea to use Svelte not because it's good but because it's popular.",
    ],
)
def test_musing_about_the_design_is_no_rule(text):
    assert _promoted(text) == []


def test_a_plan_and_a_file_in_different_clauses_name_no_plan_file():
    text = "Before anything else, write a design plan, save it to a file, and then write an AGENTS.md and save it"
    assert not any("kept in" in s for s in _promoted(text))
    assert any("kept in docs/plan.md" in s for s in _promoted("Keep the implementation plan in docs/plan.md"))


@pytest.mark.parametrize("text", ["init应该放在--help的第一行，可以移动代码完成", "init должен быть первым в --help"])
def test_a_must_said_of_one_command_by_name_is_this_turns_change(text):
    assert _promoted(text) == []


def test_a_must_said_of_a_kind_of_thing_is_still_a_rule():
    from automem.extract.rules.said import directive_rule

    for text in ("测试应该放在tests目录", "commit message应该用英文写"):
        assert [c.promotion for c in directive_rule(Session([Step("prompt", text=text)]))] == ["instruction"], text


def test_a_prompt_that_opens_a_quotation_it_never_closes_is_dictated_text():
    before = "同时包含“读取记录并分发任务，参考文档"  # the quotation opened in the prompt before is closed nowhere
    assert _promoted(before, "“必须写入日志目录下的文件") == []
    assert _promoted('"Never use var in the generated snippet') == []
    assert _promoted('"Never use var", I said. Always use const.') == ["Always use const"]


@pytest.mark.parametrize("text", ["한글로 답변해줘.", "한국말로 대답해 주세요"])
def test_asking_for_korean_by_the_scripts_name_is_a_language_preference(text):
    assert _promoted(text) == ["Talk to the user in Korean; they asked for it"]


def test_writing_a_file_in_korean_is_a_task():
    assert _promoted("README를 한글로 써줘") == []


@pytest.mark.parametrize(
    "text",
    [
        "Die Gebühr ist immer abhängig vom Standort.",
        "Le tarif est toujours calculé par heure.",
        "El precio es siempre mensual.",
    ],
)
def test_a_thing_described_with_always_is_no_rule(text):
    assert _promoted(text) == []


@pytest.mark.parametrize(
    "text", ["Verwende immer pnpm, nicht npm.", "Tests müssen immer grün sein, bevor du committest."]
)
def test_always_said_of_what_to_do_is_still_a_rule(text):
    assert _promoted(text) != []


def test_a_chinese_workflow_rule_that_says_first_is_still_a_rule():
    assert _promoted("我们先写测试再写代码，永远不要跳过测试") != []


@pytest.mark.parametrize("text", ["每次开始开发前必须先拉取最新代码", "在测试通过之前不要开始部署"])
def test_a_chinese_rule_about_when_work_starts_is_still_a_rule(text):
    from automem.extract.rules.said import directive_rule

    assert [c.promotion for c in directive_rule(Session([Step("prompt", text=text)]))] == ["instruction"]


def test_what_the_agent_does_not_do_without_the_users_word_is_a_russian_rule():
    text = "Без моего подтверждения ты не удаляешь файлы и не выходишь за пределы папки проекта."
    assert _promoted(text) == [text.rstrip(".")]


@pytest.mark.parametrize(
    "text", ["分支合并后会被删除,以后还有记录吗,不删除会不会比较好", "以后每次都要重启服务是不是更稳妥"]
)
def test_a_chinese_question_without_a_question_mark_is_no_rule(text):
    assert _promoted(text) == []


def test_a_chinese_rule_with_an_a_not_a_word_inside_is_still_a_rule():
    assert _promoted("不管是不是测试文件，都要加类型注解，永远不要用any") != []


def test_an_ascii_question_mark_before_chinese_ends_the_question():
    found = _promoted("会自己创建skills?以后我指定创建的skills都放在 ~/my-skills 文件夹下")
    assert found and not found[0].startswith("会自己创建")


def test_the_task_clauses_before_a_chinese_from_now_on_are_not_kept_in_the_rule():
    found = _promoted("删除目前所有的skills,软链到我的文件夹,以后新建的skills都存放在 ~/my-skills 下")
    assert found == ["以后新建的skills都存放在 ~/my-skills 下"]
