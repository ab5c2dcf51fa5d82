"""Prompts laid out as the spec of one request, cue words inside a quoted phrase, and this phase's design: none is a
standing rule, while the same words said to last stay rules. Each case is a short hand-written prompt."""

from __future__ import annotations

from automem.extract.directives import directives
from automem.extract.rules import Session, said
from automem.extract.steps import Step
from automem.schema import INSTRUCTION


def _said(text: str) -> list:
    return said.directive_rule(Session([Step("prompt", text=text)]))


def test_a_bracketed_cjk_spec_limits_its_request_only():
    spec = (
        "【需求一-导出按钮】在设置页新增导出按钮。\n"
        "【总体约束】\n"
        "1. 不要修改任何已有的接口和页面配色。\n"
        "2. 新按钮必须与现有按钮同样大小。\n"
        "【验证】完成后提醒我重新构建。"
    )
    assert _said(spec)
    assert all(m.promotion != INSTRUCTION for m in _said(spec))
    steps = (
        "请执行以下操作：\n1. 把配置里的端口改为 8081。\n"
        "2. 检查启动脚本，确保读取的是 8081（而不是 8080）。\n不要修改其他无关代码。"
    )
    assert all(m.promotion != INSTRUCTION for m in _said(steps))
    jp = "【タスク】CSV出力を追加して。\n【制約】既存の関数は変更しないでください。"
    assert all(m.promotion != INSTRUCTION for m in _said(jp))


def test_a_standing_rule_in_a_bracketed_prompt_still_stands():
    [rule] = _said("【约束】以后都不要修改已有的数据库迁移文件。")
    assert rule.promotion == INSTRUCTION
    [plain] = _said("不要修改已有的数据库迁移文件。")
    assert plain.promotion == INSTRUCTION


def test_a_cue_word_inside_a_quoted_phrase_is_not_the_users():
    praise = '你的分析很到位，特别是你指出的"每次都重新连接数据库"这个瓶颈，这正是我想要的。'
    assert directives(praise) == []
    assert _said(praise) == []
    [rule] = directives('以后每次都要先运行"npm test"再提交')
    assert rule.cue == "always"
    assert directives('不要用"var"声明变量')


def test_the_design_of_this_phase_or_refactor_is_not_a_rule():
    for text in (
        "请记住，这个重构的关键是从全量加载转变为按需加载。",
        "与阶段一不同，`CacheManager`应该是一个有状态的管理器。",
    ):
        assert _said(text) == [], text


def test_a_rule_of_a_basic_or_text_module_is_no_phase_of_this_work():
    """本功能 steers this work; 基本功能, 文本模块, 版本 merely hold the character."""
    for text in ("以后所有基本功能都必须写单元测试。", "永远不要修改文本模块的公共接口。", "以后新版本功能都加开关。"):
        [rule] = _said(text)
        assert rule.promotion == INSTRUCTION, text


def test_a_rule_the_user_quotes_as_their_own_is_a_rule():
    for text in ('我说过"不要修改测试文件"，你又改了。', '记住："提交前必须运行 npm test"'):
        found = _said(text)
        assert found and found[0].promotion == INSTRUCTION, text


def test_a_lead_in_that_lays_down_lasting_rules_keeps_its_items_rules():
    for lead in ("以后写代码请遵循以下要求：", "本项目的编码规范，请遵循以下要求："):
        found = _said(lead + "\n1. 不要使用 var 声明变量。\n2. 所有函数必须有类型注解。")
        assert sum(m.promotion == INSTRUCTION for m in found) >= 2, (lead, [(m.summary, m.promotion) for m in found])
