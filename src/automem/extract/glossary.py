"""English words for the developer terms in a memory written in another language.

A rule the user gave in Korean or Chinese is stored in their words, but the agent searches memory
in English ("console log", "commit", "deploy"): a short line of English terms in the body lets
those searches find it. Only common software vocabulary, no domain words: a term missing here
just means the line is shorter.
"""

from __future__ import annotations

_TERMS: dict[str, str] = {
    # Chinese
    "日志": "log",
    "控制台": "console",
    "测试": "test",
    "提交": "commit",
    "构建": "build",
    "部署": "deploy",
    "服务器": "server",
    "数据库": "database",
    "目录": "directory",
    "文件": "file",
    "分支": "branch",
    "合并": "merge",
    "配置": "config",
    "依赖": "dependency",
    "接口": "API",
    "前端": "frontend",
    "后端": "backend",
    "页面": "page",
    "组件": "component",
    "函数": "function",
    "脚本": "script",
    "错误": "error",
    "缓存": "cache",
    "随机": "random",
    "简单": "simple",
    "用户": "user",
    "登录": "login",
    "密码": "password",
    "权限": "permission",
    "安装": "install",
    "更新": "update",
    "删除": "delete",
    "同步": "sync",
    "技能": "skill",
    "设置": "settings",
    "重启": "restart",
    "中文": "Chinese",
    "代码": "code",
    "注释": "comment",
    "文档": "docs",
    # Korean
    "콘솔": "console",
    "로그": "log",
    "테스트": "test",
    "커밋": "commit",
    "빌드": "build",
    "배포": "deploy",
    "서버": "server",
    "데이터베이스": "database",
    "디렉토리": "directory",
    "폴더": "folder",
    "파일": "file",
    "브랜치": "branch",
    "설정": "settings",
    "의존성": "dependency",
    "프론트엔드": "frontend",
    "백엔드": "backend",
    "페이지": "page",
    "컴포넌트": "component",
    "함수": "function",
    "스크립트": "script",
    "에러": "error",
    "오류": "error",
    "캐시": "cache",
    "랜덤": "random",
    "무작위": "random",
    "단순": "simple",
    "진행상황": "progress",
    "사용자": "user",
    "로그인": "login",
    "비밀번호": "password",
    "권한": "permission",
    "설치": "install",
    "삭제": "delete",
    "동기화": "sync",
    "세션": "session",
    "초기화": "reset",
    "리셋": "reset",
    "에뮬레이터": "emulator",
    "코드": "code",
    "주석": "comment",
    "문서": "docs",
    "한국어": "Korean",
    # Japanese
    "ログ": "log",
    "コンソール": "console",
    "テスト": "test",
    "コミット": "commit",
    "ビルド": "build",
    "デプロイ": "deploy",
    "サーバー": "server",
    "データベース": "database",
    "ディレクトリ": "directory",
    "フォルダ": "folder",
    "ファイル": "file",
    "ブランチ": "branch",
    "依存": "dependency",
    "関数": "function",
    "スクリプト": "script",
    "エラー": "error",
    "キャッシュ": "cache",
    "ランダム": "random",
    "ユーザー": "user",
    "ログイン": "login",
    "パスワード": "password",
    "権限": "permission",
    "インストール": "install",
    "削除": "delete",
    "同期": "sync",
    "コード": "code",
    "コメント": "comment",
    "日本語": "Japanese",
    # Russian (stems)
    "лог": "log",
    "консол": "console",
    "тест": "test",
    "коммит": "commit",
    "сборк": "build",
    "депло": "deploy",
    "сервер": "server",
    "база данных": "database",
    "папк": "folder",
    "файл": "file",
    "ветк": "branch",
    "настройк": "settings",
    "функци": "function",
    "скрипт": "script",
    "ошибк": "error",
    "кэш": "cache",
    "пользовател": "user",
    "пароль": "password",
    "установ": "install",
    "удал": "delete",
    "код": "code",
    "коммент": "comment",
    "русск": "Russian",
}
MAX_TERMS = 8


def english_terms(text: str) -> list[str]:
    """The English words for the developer terms ``text`` uses, in the order they appear, at most a few."""
    lowered = (text or "").lower()
    found = sorted((at, english) for term, english in _TERMS.items() if (at := _find(lowered, term)) >= 0)
    out: list[str] = []
    for _, english in found:
        if english not in out:
            out.append(english)
    return out[:MAX_TERMS]


def _find(text: str, term: str) -> int:
    """Where ``term`` starts in ``text``, -1 if nowhere; a Cyrillic stem only at a word's start ("лог" is not in
    "диалог"), CJK terms anywhere (those scripts write words without spaces)."""
    if not ("\u0400" <= term[0] <= "\u04ff"):
        return text.find(term)
    import re

    match = re.search(rf"(?<![\u0400-\u04ff]){re.escape(term)}", text)
    return match.start() if match else -1
