"""A line typed again among the items of three requests is how the user wants the work done (a candidate)."""

from __future__ import annotations

from automem.extract.rules import Session, find_candidates
from automem.extract.steps import Step


def _found(*prompts: str) -> list[str]:
    return [c.summary for c in find_candidates(Session([Step("prompt", text=p, answer="OK.") for p in prompts]))]


def test_a_line_repeated_among_the_items_of_three_requests_is_a_preference():
    found = _found(
        "ログイン画面を作ってください。\n- src/login.js に置く\n- コメントは日本語で書く",
        "一覧画面を追加してください。\n- public/list.html\n- コメントは日本語で書く",
        "- コメントは日本語で書く\n- テストはJestを使う",
    )
    assert "In this project: コメントは日本語で書く" in found


def test_a_line_sent_alone_again_and_again_drives_one_task_on():
    again = "继续完成剩下的部分"
    found = _found(again, "看一下日志", again, "修改配置文件", again)
    assert not any("In this project" in s for s in found)


def test_a_repeated_question_is_no_preference():
    prompts = [f"任务{n}：修复问题\n- 这个函数为什么会报错？" for n in range(3)]
    assert not any("In this project" in s for s in _found(*prompts))


def test_a_line_the_user_calls_a_stopgap_is_no_preference():
    found = _found(
        "做登录页\n- 暂时用 sqlite 存数据",
        "做列表页\n- 暂时用 sqlite 存数据",
        "做详情页\n- 暂时用 sqlite 存数据",
    )
    assert not any("In this project" in s for s in found)
