"""Is a candidate a lesson we already have? BM25 over the existing memories, in SQLite FTS5.

FTS5's bm25() ranks; the decision uses the score relative to the candidate's score against
itself (its own row, inserted for the query and rolled back), so one threshold holds whatever
the size of the memory set. bench/bench_extract.py compared this with rank-bm25 (FTS5 won on
speed at 10,000 memories); THRESHOLD was calibrated on tests/data/dedupe_pairs.jsonl.
"""

from __future__ import annotations

import math
import re
from collections import Counter

from automem import regex_cache
from automem.index.scratch import ScratchIndex

THRESHOLD = 0.45  # calibrated: see tests/test_extract_dedupe.py (precision/recall printed there)
_WORD = regex_cache.compile(r"[\w]+", re.UNICODE)
_STOP = frozenset("the a an and or to of in on for with it is are be this that not no use when".split())


def _terms(text: str) -> list[str]:
    return [w for w in _WORD.findall(text.lower()) if len(w) > 1 and w not in _STOP][:64]


K1, B = 1.2, 0.75
MATCH_TERMS = 6
MIN_DOCS = 100  # IDF as if among at least this many memories: a handful of rows says little about rarity


class Deduper:
    """FTS5 finds the closest memories (bm25 rank); the decision is a BM25 similarity.

    ``best(text)`` -> (index, similarity) with similarity = BM25(text, memory) / BM25(text, text):
    1.0 means every term of the candidate is there as strongly as in the candidate itself. The
    IDF is Lucene's always-positive variant, so a set of three memories scores as sanely as one
    of ten thousand (FTS5's own bm25() floors IDF at 1e-6 when a term is in half the rows).
    """

    def __init__(self, texts: list[str] | None = None) -> None:
        self.db = ScratchIndex()
        self.terms: list[Counter] = []
        self.df: Counter = Counter()
        self.total_len = 0
        for text in texts or []:
            self.add(text)

    @property
    def count(self) -> int:
        return len(self.terms)

    def add(self, text: str) -> int:
        terms = Counter(_terms(text))
        self.db.add(self.count, " ".join(terms.elements()))
        self.terms.append(terms)
        self.df.update(terms.keys())
        self.total_len += sum(terms.values())
        return self.count - 1

    def _bm25(self, query: Counter, doc: Counter, doc_len: int, n: int, avg: float, own: bool) -> float:
        score = 0.0
        for term in query:
            tf = doc.get(term, 0)
            if not tf:
                continue
            df = self.df.get(term, 0) + (1 if own or term in query else 0)
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            score += idf * tf * (K1 + 1) / (tf + K1 * (1 - B + B * doc_len / avg))
        return score

    def best(self, text: str) -> tuple[int, float] | None:
        query = Counter(_terms(text))
        if not query or not self.terms:
            return None
        rare = sorted(query, key=lambda t: self.df.get(t, 0))[:MATCH_TERMS]  # the rarest terms find the candidates
        match = " OR ".join('"' + t.replace('"', "") + '"' for t in rare)
        rows = self.db.match(match, 8)
        if not rows:
            return None
        n = max(self.count + 1, MIN_DOCS)
        q_len = sum(query.values())
        avg = (self.total_len + q_len) / n
        self_score = self._bm25(query, query, q_len, n, avg, True)
        if self_score <= 0:
            return None
        scored = [(r, self._bm25(query, self.terms[r], sum(self.terms[r].values()), n, avg, False)) for r in rows]
        row, score = max(scored, key=lambda x: x[1])
        return row, min(1.0, score / self_score)

    def duplicate_of(self, text: str, threshold: float = THRESHOLD) -> int | None:
        found = self.best(text)
        return found[0] if found and found[1] >= threshold else None
