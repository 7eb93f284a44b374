"""Finding secrets and personal data in text: keys, tokens, passwords, private keys, connection strings,
e-mail addresses, phone numbers, card numbers (Luhn-checked), IBANs (mod-97-checked), US SSNs.

Patterns are written to miss nothing of the listed shapes while leaving ordinary prose alone: a generic
``password: x`` rule needs a value that looks like a credential (digits, symbols or mixed case), numbers
need separators or checksums, and dates and times never look like phone numbers.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

__all__ = ["Finding", "mask", "scan"]

Category = Literal["secret", "pii"]


@dataclass(frozen=True)
class Finding:
    kind: str
    category: Category
    start: int
    end: int


def _luhn(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = int(ch)
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def _card(match: str) -> bool:
    digits = re.sub(r"\D", "", match)
    return 13 <= len(digits) <= 19 and len(set(digits)) > 1 and _luhn(digits)


def _iban(match: str) -> bool:
    raw = re.sub(r"\s", "", match).upper()
    rotated = raw[4:] + raw[:4]
    number = "".join(str(int(c, 36)) for c in rotated)
    return 15 <= len(raw) <= 34 and int(number) % 97 == 1


def _phone(match: str) -> bool:
    digits = re.sub(r"\D", "", match)
    return 8 <= len(digits) <= 15


def _credential(value: str) -> bool:
    """A value that looks like a password or key, not like a word of prose."""
    if len(value) < 6:
        return False
    has_digit = any(c.isdigit() for c in value)
    has_symbol = any(not c.isalnum() for c in value)
    has_upper_inside = any(c.isupper() for c in value[1:])
    return has_digit or has_symbol or has_upper_inside or len(value) >= 16


_PASSWORD_WORDS = r"(?:password|passwd|passphrase|pwd|passcode|pin code|パスワード|暗証番号)"
_KEY_WORDS = (
    r"(?:api[_ -]?key|apikey|secret[_ -]?key|client[_ -]?secret|access[_ -]?token|auth[_ -]?token|"
    r"refresh[_ -]?token|bot[_ -]?token|private[_ -]?token|secret|token|credentials?)"
)

_PROSE_VALUES = {
    "weak", "strong", "wrong", "incorrect", "correct", "required", "needed", "missing", "expired", "reset",
    "changed", "different", "same", "simple", "secure", "protected", "forgotten", "forgot", "stored", "saved",
    "shared", "there", "here", "that", "this", "what", "easy", "hard", "long", "short", "the", "not", "still",
}

# A detector runs only when its cheap prefilter finds what every match must contain: a literal (checked
# on the lower-cased text) or, for the number shapes (cards, IBANs, SSNs, phones, bot tokens), a run of at
# least eight digits with at most two separator characters between them, found once per text.
# Most prose passes no prefilter at all.
_DIGIT_RUN = re.compile(r"\d(?:[ .()+-]{0,2}\d){7}")
DIGITS = "digits"


@dataclass(frozen=True)
class _Detector:
    kind: str
    category: Category
    pattern: re.Pattern[str]
    needs: tuple[str, ...]  # literals, or (DIGITS,)
    check: Callable[[re.Match[str]], bool] | None = None


_DETECTORS: list[_Detector] = [
    _Detector("private_key", "secret",
              re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|.*)",
                         re.S), ("private key-----",)),
    _Detector("aws_access_key", "secret", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"),
              ("akia", "asia", "agpa", "aida", "aroa")),
    _Detector("github_token", "secret",
              re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})\b"),
              ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    _Detector("gitlab_token", "secret", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), ("glpat-",)),
    _Detector("api_key", "secret", re.compile(r"\bsk-(?:ant-|proj-|live-)?[A-Za-z0-9_-]{20,}"), ("sk-",)),
    _Detector("stripe_key", "secret", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"),
              ("_live_", "_test_")),
    _Detector("slack_token", "secret", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), ("xox",)),
    _Detector("slack_webhook", "secret", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"),
              ("hooks.slack.com",)),
    _Detector("google_api_key", "secret", re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), ("aiza",)),
    _Detector("jwt", "secret", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
              ("eyj",)),
    _Detector("telegram_bot_token", "secret", re.compile(r"\b\d{8,10}:[A-Za-z0-9_-]{30,40}(?![A-Za-z0-9_-])"),
              (DIGITS,)),
    _Detector("bearer_token", "secret", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}"), ("bearer",)),
    _Detector("connection_string", "secret",
              re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:[^\s@/]+@[^\s]+"), ("://",)),
    _Detector("password", "secret",
              re.compile(rf"(?i){_PASSWORD_WORDS}\s*(?:is|was|=|:|：|は)\s*[\"'`]?(?P<value>[^\s\"'`,;、。]+)"),
              ("pass", "pwd", "pin code", "パスワード", "暗証番号"),
              lambda m: len(m["value"]) >= 4 and m["value"].lower() not in _PROSE_VALUES),
    _Detector("credential", "secret",
              re.compile(rf"(?i)\b{_KEY_WORDS}\b\s*(?:is|=|:|：)\s*[\"'`]?(?P<value>[^\s\"'`,;]+)"),
              ("key", "secret", "token", "credential"), lambda m: _credential(m["value"])),
    _Detector("email", "pii", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"),
              ("@",)),
    _Detector("card_number", "pii", re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])"), (DIGITS,),
              lambda m: _card(m[0])),
    _Detector("iban", "pii", re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"),
              (DIGITS,), lambda m: _iban(m[0])),
    _Detector("ssn", "pii", re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])"), (DIGITS,)),
    _Detector("phone", "pii",
              re.compile(
                  r"(?<![A-Za-z0-9_+])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}"
                  r"|\(\d{3}\)\s?\d{3}[ .-]\d{4}"
                  r"|\d{3}[.-]\d{3}[.-]\d{4}"
                  r"|0\d{1,4}-\d{1,4}-\d{4})(?![A-Za-z0-9_-])"
              ),
              (DIGITS,), lambda m: _phone(m[0])),
]


# any detector's literal: a text holding none (most prose) skips the per-detector checks. (Looked up one by one:
# a substring test is a fast scan, where a pattern of the 32 alternatives tries each at every position: ~6.6
# against ~11.5 us for 200 characters.)
_LITERALS = tuple(sorted({w for d in _DETECTORS for w in d.needs if w != DIGITS}))


def _holds_a_literal(lower: str) -> bool:
    for word in _LITERALS:
        if word in lower:
            return True
    return False


def scan(text: str) -> list[Finding]:
    """Every secret and piece of personal data in ``text``, non-overlapping, in order."""
    found: list[Finding] = []
    lower = text.lower()
    digits: bool | None = None
    literals = _holds_a_literal(lower)
    for d in _DETECTORS:
        if d.needs[0] == DIGITS:
            if digits is None:
                digits = _DIGIT_RUN.search(text) is not None
            if not digits:
                continue
        elif not literals or not any(word in lower for word in d.needs):
            continue
        for m in d.pattern.finditer(text):
            if d.check is not None and not d.check(m):
                continue
            found.append(Finding(d.kind, d.category, m.start(), m.end()))
    found.sort(key=lambda f: (f.start, -(f.end - f.start)))
    kept: list[Finding] = []
    for f in found:
        if kept and f.start < kept[-1].end:
            continue
        kept.append(f)
    return kept


def mask(text: str, findings: list[Finding]) -> str:
    """``text`` with each finding replaced by ``[REDACTED:<kind>]``."""
    out: list[str] = []
    pos = 0
    for f in findings:
        out.append(text[pos : f.start])
        out.append(f"[REDACTED:{f.kind}]")
        pos = f.end
    out.append(text[pos:])
    return "".join(out)
