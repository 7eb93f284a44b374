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

_DETECTORS: list[tuple[str, Category, re.Pattern[str], Callable[[re.Match[str]], bool] | None]] = [
    ("private_key", "secret",
     re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:.*?-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----|.*)",
                re.S), None),
    ("aws_access_key", "secret", re.compile(r"\b(?:AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}\b"), None),
    ("github_token", "secret",
     re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{30,}|github_pat_[A-Za-z0-9_]{22,})\b"), None),
    ("gitlab_token", "secret", re.compile(r"\bglpat-[A-Za-z0-9_-]{20,}"), None),
    ("api_key", "secret", re.compile(r"\bsk-(?:ant-|proj-|live-)?[A-Za-z0-9_-]{20,}"), None),
    ("stripe_key", "secret", re.compile(r"\b(?:sk|rk|pk)_(?:live|test)_[A-Za-z0-9]{16,}\b"), None),
    ("slack_token", "secret", re.compile(r"\bxox[abposre]-[A-Za-z0-9-]{10,}"), None),
    ("slack_webhook", "secret", re.compile(r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]+"), None),
    ("google_api_key", "secret", re.compile(r"\bAIza[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])"), None),
    ("jwt", "secret", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"), None),
    ("telegram_bot_token", "secret", re.compile(r"\b\d{8,10}:[A-Za-z0-9_-]{30,40}(?![A-Za-z0-9_-])"), None),
    ("bearer_token", "secret", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{16,}"), None),
    ("connection_string", "secret",
     re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]*://[^\s:/@]+:[^\s@/]+@[^\s]+"), None),
    ("password", "secret",
     re.compile(rf"(?i){_PASSWORD_WORDS}\s*(?:is|was|=|:|：|は)\s*[\"'`]?(?P<value>[^\s\"'`,;、。]+)"),
     lambda m: len(m["value"]) >= 4 and m["value"].lower() not in _PROSE_VALUES),
    ("credential", "secret",
     re.compile(rf"(?i)\b{_KEY_WORDS}\b\s*(?:is|=|:|：)\s*[\"'`]?(?P<value>[^\s\"'`,;]+)"),
     lambda m: _credential(m["value"])),
    ("email", "pii", re.compile(r"\b[A-Za-z0-9._%+-]+@[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.[A-Za-z]{2,}\b"), None),
    ("card_number", "pii", re.compile(r"(?<![\d-])\d(?:[ -]?\d){12,18}(?![\d-])"), lambda m: _card(m[0])),
    ("iban", "pii", re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b"),
     lambda m: _iban(m[0])),
    ("ssn", "pii", re.compile(r"(?<![\d-])\d{3}-\d{2}-\d{4}(?![\d-])"), None),
    ("phone", "pii",
     re.compile(
         r"(?<![A-Za-z0-9_+])(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}"
         r"|\(\d{3}\)\s?\d{3}[ .-]\d{4}"
         r"|\d{3}[.-]\d{3}[.-]\d{4}"
         r"|0\d{1,4}-\d{1,4}-\d{4})(?![A-Za-z0-9_-])"
     ),
     lambda m: _phone(m[0])),
]



def scan(text: str) -> list[Finding]:
    """Every secret and piece of personal data in ``text``, non-overlapping, in order."""
    found: list[Finding] = []
    for kind, category, pattern, check in _DETECTORS:
        for m in pattern.finditer(text):
            if check is not None and not check(m):
                continue
            found.append(Finding(kind, category, m.start(), m.end()))
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
