"""Cue words for standing rules in Italian, Polish, Turkish, Dutch, Ukrainian, Vietnamese and Indonesian.

Each language gets the same few directives as the others in directives.py (never / don't, always, from now on,
instead of, prefer, remember) plus "talk to me in <language>". The cues are narrower than a bare word: "always"
counts next to an imperative ("usa sempre pnpm"), not in a report ("il test fallisce sempre"), and a negation only
in the imperative ("nie używaj", "kullanma", "jangan pakai"), so that a one-off request or a bug report is no rule.

Latin-script text says its language by its small words: ``latin_language`` names it when one of these languages
clearly leads, so that a Polish "nie działa" is not read with German's "nie" (never).
"""

from __future__ import annotations

import re

from automem import lazy_re as rx

# --- which Latin-script language ----------------------------------------------------------------

_WORDS = {
    "en": "the a an and you to of is are it this that with for in on not be do don't please use always never i my me"
    " we our your like prefer want need should must when all code file run test tests per",
    "es": "el los las que en y por para con una es no se del usa siempre nunca este esta lo de la un mi al te prefiero",
    "pt": "o os as que em e não para com uma um do da é você neste nunca sempre use",
    "fr": "le les de des et pas ne pour avec une un du est ce dans je tu jamais toujours",
    "de": "der die das und nicht ist mit für ein eine auf ich du bitte immer niemals nie nur kein keine den dem zu"
    " im es wir sondern verwende benutze nutze mach schreib",
    "it": "il lo gli di che e non per con una un del della è questo questa sempre mai usa usare invece ogni volta"
    " anche fare sono ho più",
    "pl": "i w z na nie się sie to jest do że ze od tak ten ta zawsze nigdy proszę prosze używaj uzywaj zamiast"
    " dziala działa mnie tego juz już czy dobra zrob zrób popraw",
    "tr": "bir ve bu için icin ile her zaman asla lütfen lutfen kullan kullanma yerine bundan sonra daima bunu şu"
    " değil olarak hiçbir hicbir",
    "nl": "de het een en niet met voor van op ik je dit deze gebruik altijd nooit geen vanaf voortaan wel ook"
    " moet naar als maak",
    "vi": "không của và là cho này tôi bạn luôn đừng dùng khi từ giờ nay hãy được khong luon toi gio nhe nha duoc cua",
    "id": "yang dan di ini itu untuk dengan tidak jangan saya kamu selalu pakai gunakan ada ke dari mulai bukan"
    " sudah belum akan bisa harus pernah sekarang tolong dulu lagi",
}
_LETTERS = {  # letters only one of the languages read here uses
    "pl": "ąęłńśźżć",
    "tr": "ğışİ",
    "vi": "ơưăđạảấầẩẫậắằẳẵặẹẻẽếềểễệỉịọỏốồổỗộớờởỡợụủứừửữựỳỵỷỹ",
}
_TOKEN = rx.compile(r"(?<!\w)[^\W\d_]+(?:'[^\W\d_]+)?(?!\w)")  # whole words: no "e" out of "e2e"
NEW_LATIN = ("it", "pl", "tr", "nl", "vi", "id")
READ_HERE = (*NEW_LATIN, "uk")


def latin_language(text: str) -> str:
    """The language of a Latin-script sentence among ``NEW_LATIN`` when its words clearly say so, else "latin"
    (English, or Spanish, German, French, Portuguese: read as before)."""
    tokens = [t.lower() for t in _TOKEN.findall(text)]
    scores = {lang: sum(t in words.split() for t in tokens) for lang, words in _WORDS.items()}
    for lang, letters in _LETTERS.items():
        scores[lang] += 2 * sum(ch in letters for ch in text)
    best = max(NEW_LATIN, key=lambda lang: scores[lang])
    others = max(score for lang, score in scores.items() if lang != best)
    return best if scores[best] > others else "latin"


UKRAINIAN_LETTERS = rx.compile(r"[іїєґІЇЄҐ]")

# --- cues ---------------------------------------------------------------------------------------


def _near(verbs: str, word: str) -> str:
    """A pattern for ``word`` said next to one of ``verbs`` (two words apart at most), either order."""
    return rf"(?:\b(?:{verbs})\b(?:\s+\S+){{0,2}}?\s+(?:{word})\b|\b(?:{word})(?:\s+\S+){{0,2}}?\s+(?:{verbs})\b)"


def _with_verb(verbs: str, word: str) -> str:
    """A pattern for ``word`` in a sentence that also holds one of ``verbs`` anywhere."""
    return rf"^(?=.*\b(?:{verbs})\b).*\b(?:{word})\b"


_IT_VERBS = (
    r"usa|usate|utilizza|scrivi|fai|esegui|lancia|metti|aggiungi|rispondi|rispondimi|parla|parlami|controlla"
    r"|verifica|chiedi|chiedimi|crea|aggiorna|testa|committa|mantieni|tieni|segui|leggi|spiega|documenta|commenta"
    r"|formatta|includi|evita|rispetta|salva|mostra|dimmi|avvisami|lavora|procedi|scrivete|usiamo|lanciate"
)
_IT_INFINITIVES = (
    r"usare|utilizzare|fare|toccare|modificare|cambiare|eseguire|lanciare|cancellare|eliminare|aggiungere|scrivere"
    r"|creare|installare|committare|pushare|rimuovere|mettere|inventare|includere|spostare|rinominare|usarlo"
)
_PL_VERBS = (
    r"używaj|uzywaj|użyj|uzyj|pisz|rób|rob|uruchamiaj|odpowiadaj|sprawdzaj|dodawaj|twórz|tworz|commituj|pushuj"
    r"|testuj|aktualizuj|stosuj|trzymaj|pytaj|czytaj|dokumentuj|komentuj|formatuj|instaluj|usuwaj|zmieniaj"
    r"|dotykaj|ruszaj|wrzucaj|korzystaj|mów|mow|pracuj|odpalaj|kasuj|wymyślaj|wymyslaj|zgaduj|zostawiaj"
)
_TR_DONT = (
    r"kullanma|yapma|dokunma|silme|değiştirme|degistirme|ekleme|yazma|çalıştırma|calistirma|oluşturma|olusturma"
    r"|gönderme|gonderme|etme|kurma|atma|uydurma"
)
_NL_VERBS = (
    r"gebruik|schrijf|doe|voer|draai|zet|voeg|antwoord|praat|vraag|maak|test|controleer|check|commit|push|houd"
    r"|hou|volg|lees|update|werk|installeer|verwijder|wijzig|verander|raak|pas|run|leg|reageer|spreek"
)
_UK_VERBS = (
    r"використовуй|пиши|роби|запускай|відповідай|перевіряй|додавай|створюй|комить|коміть|тестуй|оновлюй|став"
    r"|тримай|питай|читай|документуй|коментуй|форматуй|встановлюй|видаляй|змінюй|чіпай|пуш|пуште|говори|працюй"
)
_UK_LETTER = r"[а-яіїєґʼ'’]"
_VI_VERBS = (
    r"dùng|sử dụng|viết|chạy|trả lời|kiểm tra|hỏi|thêm|giữ|làm|đọc|cập nhật|commit|push|test|tạo|nói|giải thích"
    r"|comment|format|ghi|cài|xóa|xoá|sửa|thay đổi|đụng|động vào|gọi|đặt"
)
# Vietnamese typed without its accents, as many do: "tu gio luon dung pnpm"
_VI_PLAIN_VERBS = r"dung|su dung|viet|chay|tra loi|kiem tra|hoi|them|giu|lam|doc|cap nhat|tao|noi|giai thich|goi"
_ID_VERBS = (
    r"gunakan|pakai|pake|tulis|tuliskan|jalankan|buat|buatkan|tambahkan|jawab|balas|cek|periksa|tanya|tanyakan"
    r"|commit|push|ikuti|baca|perbarui|update|hapus|ubah|simpan|jelaskan|beri|berikan|pastikan|install|instal"
    r"|format|pilih|tampilkan|sertakan|hindari|kirim"
)
# "must": a rule with "always" or "from now on" ("een sessie moet vanaf nu altijd ..."), never alone
_MUST = {
    "it": r"devi|deve|devono|bisogna",
    "pl": r"musisz|musi|muszą|musza|ma być|ma byc|powinien|powinno|powinna|powinieneś|powinienes",
    "nl": r"moet|moeten|dient",
    "id": r"harus|wajib",
    "vi": r"phải|phai",
    "uk": r"має|мусиш|повинен|повинна|повинно|треба",
}

# an Italian imperative of -are verbs reads like "it uses" ("il server usa sempre X"): only first in the sentence
_IT_START = r"^(?:(?:per favore|ok|e|ma|poi|quindi|inoltre|allora|no)[,.]?\s+)*"
# the verb a Turkish sentence ends with says a report ("hep çöküyor", "asla çalışmadı"), not a request
_TR_NOT_REPORT = r"(?!.*(?:yor|dı|di|du|dü|tı|ti|tu|tü|mış|miş|muş|müş|dır|dir|cak|cek)\W*$)"
# "не переживай", "не чекай на мене": reassurance or a word about this moment, not a rule
_NOT_REASSURANCE = r"(?!(?:переживай|хвилюйся|турбуйся|поспішай|чекай|зважай|бійся)\w*)"
_UK_IMPERATIVE = rf"(?:{_UK_VERBS}|{_UK_LETTER}+(?:уй|юй|ай|яй|йте|іть|ьте))(?!{_UK_LETTER})"
_UK_BINDING = rf"(?:{_UK_IMPERATIVE}|(?<!{_UK_LETTER})(?:{_MUST['uk']})(?!{_UK_LETTER}))"

# (language, cue kind, kind, pattern), read like directives._INTL
CUES: tuple[tuple[str, str, str, re.Pattern], ...] = (
    (
        "it",
        "never",
        "decision",
        rx.compile(
            rf"(?<!per )(?<!di )\bnon\s+(?:(?:mai|più)\s+)?(?:{_IT_INFINITIVES})\b"
            rf"|\bnon\s+(?:{_IT_INFINITIVES})\s+mai\b|\bmai\s+più\s+(?:{_IT_INFINITIVES})\b|^mai\s+(?:{_IT_INFINITIVES}|\w+are|\w+ere|\w+ire)\b",
            re.I,
        ),
    ),
    (
        "it",
        "always",
        "preference",
        rx.compile(
            _IT_START + rf"(?:sempre\s+(?:{_IT_VERBS})\b|(?:{_IT_VERBS})\b(?:\s+\S+){{0,2}}?\s+sempre\b)"
            rf"|\b(?:{_MUST['it']})\s+sempre\b",
            re.I,
        ),
    ),
    (
        "it",
        "future",
        "preference",
        rx.compile(
            _with_verb(
                _IT_VERBS + "|" + _IT_INFINITIVES + "|" + _MUST["it"],
                r"d'ora in (?:poi|avanti)|da (?:ora|adesso|qui) in (?:poi|avanti)|in futuro|la prossima volta",
            ),
            re.I,
        ),
    ),
    (
        "it",
        "swap",
        "decision",
        rx.compile(_IT_START + rf"(?:{_IT_VERBS})\b.*\b(?:invece di|al posto di|anziché|piuttosto che)\b", re.I),
    ),
    (
        "it",
        "prefer",
        "preference",
        rx.compile(
            r"^(?:io\s+)?preferisco\s+(?!(?:la|il|l'|lo)\s*(?:prima|primo|seconda|secondo|opzione)|quest|quell)",
            re.I,
        ),
    ),
    ("it", "remember", "decision", rx.compile(r"^(?:ricorda(?:ti)?|tieni a mente)(?:\s+che\s+|\s*[:,]\s*)\w", re.I)),
    (
        "pl",
        "never",
        "decision",
        rx.compile(rf"(?<!czy )\bnie\s+(?:{_PL_VERBS})\b", re.I),
    ),
    ("pl", "always", "preference", rx.compile(_near(_PL_VERBS + "|" + _MUST["pl"], "zawsze"), re.I)),
    (
        "pl",
        "future",
        "preference",
        rx.compile(
            _with_verb(
                _PL_VERBS + "|" + _MUST["pl"],
                r"od teraz|od tej pory|od dzisiaj|od dziś|od dzis|odtąd|odtad|na przyszłość|na przyszlosc"
                r"|w przyszłości|w przyszlosci|następnym razem|nastepnym razem",
            ),
            re.I,
        ),
    ),
    ("pl", "swap", "decision", rx.compile(_with_verb(_PL_VERBS, "zamiast"), re.I)),
    ("pl", "prefer", "preference", rx.compile(r"^(?:ja\s+)?(?:wolę|wole|preferuję)\s+\w", re.I)),
    (
        "pl",
        "remember",
        "decision",
        rx.compile(r"^(?:pamiętaj|pamietaj|zapamiętaj|zapamietaj)(?:\s*,?\s*(?:że|ze)\s+|\s*[:,]\s*)\w", re.I),
    ),
    (
        "tr",
        "never",
        "decision",
        rx.compile(
            rf"\b(?:asla|hiçbir zaman|hicbir zaman)\b{_TR_NOT_REPORT}"
            rf"|(?<!merak )(?<!endişe )(?<!endise )(?<!dert )\b(?:{_TR_DONT})(?:yın|yin|yınız|yiniz)?\s*[.!]*$",
            re.I,
        ),
    ),
    (
        "tr",
        "always",
        "preference",
        rx.compile(r"\b(?:her zaman|daima|her seferinde)\b" + _TR_NOT_REPORT, re.I),
    ),
    (
        "tr",
        "future",
        "preference",
        rx.compile(
            r"\b(?:bundan sonra|bundan böyle|bundan boyle|şu andan itibaren|su andan itibaren|artık her zaman)\b"
            + _TR_NOT_REPORT,
            re.I,
        ),
    ),
    ("tr", "swap", "decision", rx.compile(r"\byerine\s+(?:\S+\s+){0,3}?kullan\w*", re.I)),
    ("tr", "prefer", "preference", rx.compile(r"\b(?:tercih ederim|tercihim)\b", re.I)),
    ("tr", "remember", "decision", rx.compile(r"^(?:şunu |sunu )?(?:unutma|hatırla|hatirla)\s*[:,]\s*\w", re.I)),
    (
        "nl",
        "never",
        "decision",
        rx.compile(
            _near(_NL_VERBS, "nooit")
            + rf"|^nooit\b|^(?:{_NL_VERBS})\s+(?:\S+\s+){{0,4}}?(?:niet|geen)\b(?!\s+(?:meer|alleen)\b)",
            re.I,
        ),
    ),
    ("nl", "always", "preference", rx.compile(_near(_NL_VERBS + "|" + _MUST["nl"], "altijd"), re.I)),
    (
        "nl",
        "future",
        "preference",
        rx.compile(
            _with_verb(_NL_VERBS, r"vanaf nu|voortaan|in het vervolg|van nu af aan|in de toekomst|de volgende keer"),
            re.I,
        ),
    ),
    ("nl", "swap", "decision", rx.compile(_with_verb(_NL_VERBS, r"in plaats van|i\.p\.v\.|ipv"), re.I)),
    ("nl", "prefer", "preference", rx.compile(r"^ik\s+(?:heb\s+)?(?:liever|prefereer|geef de voorkeur aan)\b", re.I)),
    ("nl", "remember", "decision", rx.compile(r"^onthoud(?:\s+dat\s+|\s*[:,]\s*)\w", re.I)),
    (
        "uk",
        "never",
        "decision",
        rx.compile(
            rf"(?<!{_UK_LETTER})в жодному разі(?!{_UK_LETTER})"
            rf"|(?<!{_UK_LETTER})не\s+{_NOT_REASSURANCE}{_UK_IMPERATIVE}",
            re.I,
        ),
    ),
    ("uk", "always", "preference", rx.compile(rf"(?<!{_UK_LETTER})завжди\s+(?:\S+\s+)?{_UK_BINDING}", re.I)),
    (
        "uk",
        "future",
        "preference",
        rx.compile(
            rf"^(?=.*{_UK_BINDING}).*(?<!{_UK_LETTER})(?:відтепер|надалі|віднині|з цього моменту|наступного разу)"
            rf"(?!{_UK_LETTER})",
            re.I,
        ),
    ),
    ("uk", "swap", "decision", rx.compile(rf"^(?=.*{_UK_IMPERATIVE}).*(?<!{_UK_LETTER})замість(?!{_UK_LETTER})", re.I)),
    ("uk", "prefer", "preference", rx.compile(r"(?:я\s+)?(?:надаю|віддаю)\s+перевагу", re.I)),
    ("uk", "remember", "decision", rx.compile(r"^(?:запам['ʼ’]ятай|пам['ʼ’]ятай)(?:\s*,?\s*що\s+|\s*[:,]\s*)\S", re.I)),
    (
        "vi",
        "never",
        "decision",
        rx.compile(
            rf"\b(?:không bao giờ|khong bao gio|đừng bao giờ|tuyệt đối không|tuyet doi khong)\s+(?:được\s+|duoc\s+)?"
            rf"(?:{_VI_VERBS}|{_VI_PLAIN_VERBS})\b(?!.*\b(?:được|duoc)\W*$)"
            rf"|\bđừng\s+(?:{_VI_VERBS})\b",
            re.I,
        ),
    ),
    (
        "vi",
        "always",
        "preference",
        rx.compile(
            rf"\b(?:luôn luôn|luôn|lúc nào cũng|luon luon|luon)\s+(?:(?:{_MUST['vi']})\s+)?"
            rf"(?:{_VI_VERBS}|{_VI_PLAIN_VERBS})\b",
            re.I,
        ),
    ),
    (
        "vi",
        "future",
        "preference",
        rx.compile(  # a request ("hãy", "đừng", "luôn", "nhé"), not what the code does now ("... chạy được rồi")
            r"^(?=.*\b(?:hãy|hay|đừng|luôn|luon|phải|phai|nhé|nhe|nha)\b)(?!.*\b(?:rồi|roi)\W*$)"
            r".*\b(?:từ giờ|từ nay|từ bây giờ|từ giờ trở đi|từ nay về sau|lần sau|tu gio|tu nay|tu bay gio|lan sau)\b",
            re.I,
        ),
    ),
    ("vi", "swap", "decision", rx.compile(_with_verb(_VI_VERBS, r"thay vì|thay vi|thay cho"), re.I)),
    ("vi", "remember", "decision", rx.compile(r"^(?:hãy\s+)?(?:ghi nhớ|nhớ)\s*(?:rằng\s+|là\s+|[:,]\s*)\S", re.I)),
    (
        "id",
        "never",
        "decision",
        rx.compile(
            rf"\b(?:jangan|jgn)\s+(?:pernah|sekali-kali)\b"
            rf"|\b(?:jangan|jgn)\s+(?:lagi\s+)?(?!lupa\b|khawatir\b|ragu\b|takut\b)(?:{_ID_VERBS}|me\w{{3,}})\b",
            re.I,
        ),
    ),
    (
        "id",
        "always",
        "preference",
        rx.compile(
            rf"\b(?:(?:{_MUST['id']})\s+)?(?:selalu|senantiasa)\s+(?:{_ID_VERBS})\b|\b(?:{_ID_VERBS})\s+selalu\b"
            rf"|\b(?:{_MUST['id']})\s+selalu\b",
            re.I,
        ),
    ),
    (
        "id",
        "future",
        "preference",
        rx.compile(
            _with_verb(
                _ID_VERBS + r"|jangan|jgn",
                r"mulai sekarang|mulai saat ini|mulai dari sekarang|ke depannya|kedepannya|lain kali",
            ),
            re.I,
        ),
    ),
    (
        "id",
        "swap",
        "decision",
        rx.compile(
            rf"\b(?:{_ID_VERBS})\b[^.!?]{{1,60}}?(?:,\s*bukan|\balih-alih|\bbukannya|\bsebagai ganti)\s+\S", re.I
        ),
    ),
    (
        "id",
        "prefer",
        "preference",
        rx.compile(
            r"^(?:(?:mulai sekarang|ke depannya|kedepannya|lain kali)\s*,?\s*)?"
            r"(?:saya|aku)\s+lebih\s+(?:suka|senang|memilih)\b",
            re.I,
        ),
    ),
    ("id", "remember", "decision", rx.compile(r"^(?:tolong\s+)?ingat(?:lah)?(?:\s+bahwa\s+|\s*[:,]\s*)\w", re.I)),
)

# "answer in Italian", said in the language itself: about talking with the user, not a task done in it
LANGUAGES: tuple[tuple[str, re.Pattern], ...] = (
    (
        "English",
        rx.compile(
            r"\b(?:rispondi(?:mi)?|parla(?:mi)?)\s+(?:sempre\s+|solo\s+)?in\s+inglese\b"
            r"|\b(?:odpowiadaj|odpowiedz|mów|mow|pisz)\s+(?:do mnie\s+)?(?:zawsze\s+|tylko\s+)?po\s+angielsku\b"
            r"|\b(?:ingilizce)\s+(?:cevap\s+ver|yanıt\s+ver|yanit\s+ver|konuş|konus)"
            r"|\b(?:antwoord|spreek|praat)\s+(?:altijd\s+|alleen\s+)?in\s+het\s+engels\b"
            r"|(?:відповідай|говори|спілкуйся)\s+(?:завжди\s+|тільки\s+)?англійською"
            r"|\b(?:trả lời|tra loi|nói|noi)\s+(?:luôn\s+)?(?:bằng\s+|bang\s+)?(?:tiếng anh|tieng anh)\b"
            r"|\b(?:jawab|balas|bicara|berbicara)\w*\s+(?:selalu\s+)?(?:dalam|dengan|pakai|pake|menggunakan)\s+"
            r"bahasa\s+inggris\b",
            re.I,
        ),
    ),
    (
        "Italian",
        rx.compile(r"\b(?:rispondi(?:mi)?|parla(?:mi)?|scrivimi)\s+(?:sempre\s+|solo\s+)?(?:in\s+)?italiano\b", re.I),
    ),
    (
        "Polish",
        rx.compile(
            r"\b(?:odpowiadaj|odpowiedz|mów|mow|rozmawiaj|pisz)\s+(?:do mnie\s+|ze mną\s+|ze mna\s+)?(?:zawsze\s+"
            r"|tylko\s+)?(?:po\s+polsku|w\s+języku\s+polskim|w\s+jezyku\s+polskim)\b",
            re.I,
        ),
    ),
    (
        "Turkish",
        rx.compile(
            r"\b(?:bana\s+)?(?:her zaman\s+)?(?:türkçe|turkce)\s+(?:cevap\s+ver|yanıt\s+ver|yanit\s+ver|konuş|konus"
            r"|cevapla|yanıtla|yanitla)\w*",
            re.I,
        ),
    ),
    (
        "Dutch",
        rx.compile(
            r"\b(?:antwoord|spreek|praat|reageer)\s+(?:altijd\s+|alleen\s+)?(?:in\s+(?:het\s+)?|met mij in\s+)?"
            r"nederlands\b",
            re.I,
        ),
    ),
    (
        "Ukrainian",
        rx.compile(
            r"(?:відповідай|говори|пиши|спілкуйся)\s+(?:зі мною\s+)?(?:завжди\s+|тільки\s+|лише\s+)?"
            r"(?:українською|на\s+українській)",
            re.I,
        ),
    ),
    (
        "Vietnamese",
        rx.compile(
            r"\b(?:trả lời|tra loi|nói|noi|giao tiếp|giao tiep|phản hồi|phan hoi)\s+(?:luôn\s+|chỉ\s+)?"
            r"(?:bằng\s+|bang\s+)?(?:tiếng việt|tieng viet)\b",
            re.I,
        ),
    ),
    (
        "Indonesian",
        rx.compile(
            r"\b(?:jawab|balas|respon|bicara|berbicara|ngobrol)\w*\s+(?:selalu\s+)?(?:dalam|dengan|pakai|pake"
            r"|menggunakan)\s+bahasa\s+indonesia\b",
            re.I,
        ),
    ),
)

# words that make a rule outlast the prompt it was said in
# "from now on" in these languages: the one phrase that makes a rule said in them promoted at once (said.lasting);
# not Turkish "bundan sonra" (also "after this", in reports: "bundan sonra çalışmadı")
FROM_NOW_ON = rx.compile(
    r"\b(?:d'ora in (?:poi|avanti)|da ora in (?:poi|avanti)|od teraz|od tej pory|bundan böyle|vanaf nu"
    r"|voortaan|từ giờ|từ nay|tu gio|tu nay|mulai (?:sekarang|saat ini)|ke depannya)\b|відтепер|надалі",
    re.I,
)
OUTLASTS = (
    r"\b(?:sempre|mai|d'ora in poi|zawsze|nigdy|od teraz|her zaman|asla|bundan sonra|daima|altijd|nooit|vanaf nu"
    r"|voortaan|luôn|không bao giờ|từ giờ|từ nay|selalu|jangan pernah|mulai sekarang)\b"
    r"|завжди|ніколи|відтепер|надалі"
)
# "for this fix", "this time", "for now" in these languages: what steers only the work at hand
THIS_WORK = (
    r"questa volta|stavolta|per questo (?:fix|bug|task|compito)|tym razem|w tym zadaniu|bu sefer|bu seferlik|bu kez"
    r"|deze keer|dit keer|voor deze (?:taak|fix)|цього разу|на цей раз|для цього завдання|lần này|lan nay"
    r"|kali ini|untuk tugas ini"
    # this conversation, this answer
    r"|questa (?:conversazione|sessione|chat|risposta)|(?:tej|w tej) (?:rozmowie|sesji|odpowiedzi)|ta odpowiedź"
    r"|bu (?:konuşma|konusma|oturum|sohbet|cevap|yanıt|yanit)|dit (?:gesprek|antwoord)|deze (?:sessie|chat)"
    r"|цій розмові|цієї сесії|цю відповідь|ця відповідь|cuộc trò chuyện này|phiên này|câu trả lời này"
    r"|(?:percakapan|sesi|chat|jawaban|balasan|bagian) ini"
    # the rest, nothing else, the second option
    r"|il resto|nient'altro|niente altro|reszty|resztę|reszte|nic więcej|nic innego|geri kalan|başka bir şey|de rest"
    r"|niets anders|решту|нічого іншого|phần còn lại|sisanya"
    r"|\b(?:opzione|opcj[aęi]|seçenek|secenek|optie|варіант|lựa chọn|phương án|opsi)\s*(?:\d|[a-d]\b)"
    r"|\b(?:la prima|la seconda|il primo|il secondo|drug[aąi] opcj\w+|ilk seçenek|ikinci seçenek|de eerste|de tweede"
    r"|перш\w+ варіант|друг\w+ варіант|cái thứ hai|opsi (?:pertama|kedua)|yang (?:pertama|kedua))\b"
    # for now
    r"|per ora|per adesso|na razie|şimdilik|simdilik|voorlopig|поки що|tạm thời|tam thoi|untuk sementara"
)
THIS_STAGE = (
    r"per ora|per adesso|non ancora|na razie|jeszcze nie|şimdilik|simdilik|henüz|henuz|nog niet|voorlopig"
    r"|поки що|ще не|tạm thời|tam thoi|untuk sementara|sementara ini"
)
# how a question opens in these languages when it has no question mark
QUESTION_START = (
    r"(?:perché|perche|come mai|cosa|dove|quando|quale|qual è|chi|czy|jak|dlaczego|gdzie|kiedy|neden|nasıl|nasil"
    r"|nerede|waarom|hoe|wat|waar|wanneer|kun je|kan je|чому|як|що|де|чи|коли|tại sao|tai sao|làm sao|lam sao"
    r"|apa|apakah|bagaimana|kenapa|mengapa|berapa|kapan|bisakah)\b"
)
# playing a part, not a rule: "sei un esperto", "kamu akan bertindak sebagai ..."
ROLE = (
    r"^(?:d'ora in poi,?\s+)?(?:sei un|agisci come|comportati come)\b|\b(?:działaj jako|wciel się)\b"
    r"|\bgibi davran\b|^je bent (?:een|mijn)\b|\bдій як\b|\bhãy đóng vai\b|^(?:bạn là|ban la)\b"
    r"|\b(?:bertindak|berperan) sebagai\b|^(?:kamu|anda) adalah\b"
)
# a prompt that opens by asking for a piece of work
TASK_OPENING = (
    r"^\W*(?:scrivi|crea|implementa|genera|napisz|stwórz|stworz|utwórz|utworz|zaimplementuj|wygeneruj|yaz|oluştur"
    r"|olustur|schrijf|maak|implementeer|genereer|напиши|створи|реалізуй|зроби|viết|tạo|buat|buatkan|buatlah|tulis"
    r"|tuliskan)\b"
)
# a rule about "that" or "this" names nothing the next session could find: "non fare questo", "jangan begitu"
VAGUE = (
    r"\b(?:questo|quello|così|cosi|tego|tak|dat|dit|begitu|bunu|şunu|sunu|onu|це|цього|так|vậy|thế)"
    r"(?:\s+(?:niet|lagi|więcej|wiecej|nữa|più|piu))?\W*$"
    # Indonesian "ini"/"itu" follow their noun ("proyek ini": this project): vague only right after the verb
    r"|\b(?:jangan|\w+kan|lakukan|pakai|ubah|hapus)\s+(?:ini|itu)"
    r"(?:\s+(?:niet|lagi|więcej|wiecej|nữa|più|piu))?\W*$"
    r"|\b(?:questo|quel|quello) (?:file|cosa|pezzo)\b|\b(?:ten|tego|tym) plik\w*|\b(?:bu|şu|su) dosya\w*"
    r"|\b(?:dit|dat) bestand\b|\b(?:цей|цього|той) файл\w*|\b(?:file|tệp) (?:này|đó)|\b(?:file|berkas) (?:ini|itu)\b"
)
