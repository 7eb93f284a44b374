"""Privacy guard quality: recall on a generated labelled set of secrets and personal data, and the false-positive
rate on ordinary conversation (every LoCoMo turn, read from the shared datasets).

Each labelled item is a realistic sentence carrying one secret or piece of personal data of a known kind,
generated with a fixed seed (varied formats: keys of several vendors, tokens, passwords in English and
Japanese, private keys, connection strings, e-mail, phone numbers in several national formats, Luhn-valid
card numbers, mod-97-valid IBANs, SSNs). An item counts as caught when ``record()`` refuses it or stores it
with the value masked. A LoCoMo turn is a false positive when the guard finds anything in it.

    python bench/privacy.py
"""

from __future__ import annotations

import collections
import json
import random
import string

from _common import dataset, table, write_results

from graphmem import Memory, PrivacyRefused
from graphmem.privacy import scan

RNG = random.Random(20251127)


def rand(chars: str, n: int) -> str:
    return "".join(RNG.choice(chars) for _ in range(n))


ALNUM = string.ascii_letters + string.digits
UPPER_DIGITS = string.ascii_uppercase + string.digits


def luhn_complete(prefix: str, length: int) -> str:
    body = prefix + rand(string.digits, length - len(prefix) - 1)
    for check in string.digits:
        digits = body + check
        total = sum((int(d) * 2 - 9 if int(d) * 2 > 9 else int(d) * 2) if i % 2 else int(d)
                    for i, d in enumerate(reversed(digits)))
        if total % 10 == 0:
            return digits
    raise AssertionError


def iban(country: str, length: int) -> str:
    bban = rand(string.digits, length - 4)
    numeric = "".join(str(int(c, 36)) for c in bban + country + "00")
    check = 98 - int(numeric) % 97
    raw = f"{country}{check:02d}{bban}"
    return " ".join(raw[i:i + 4] for i in range(0, len(raw), 4))


GENERATORS = {
    "aws_access_key": lambda: "AKIA" + rand(UPPER_DIGITS, 16),
    "github_token": lambda: RNG.choice(["ghp_", "gho_", "ghs_"]) + rand(ALNUM, 36),
    "api_key": lambda: RNG.choice(["sk-", "sk-proj-", "sk-ant-api03-"]) + rand(ALNUM + "-_", 40),
    "stripe_key": lambda: RNG.choice(["sk_live_", "rk_live_", "sk_test_"]) + rand(ALNUM, 24),
    "slack_token": lambda: RNG.choice(["xoxb-", "xoxp-"]) + rand(string.digits, 12) + "-" + rand(ALNUM, 24),
    "google_api_key": lambda: "AIza" + rand(ALNUM + "-_", 35),
    "jwt": lambda: "eyJ" + rand(ALNUM, 20) + ".eyJ" + rand(ALNUM, 30) + "." + rand(ALNUM + "-_", 43),
    "telegram_bot_token": lambda: rand(string.digits, 10) + ":" + rand(ALNUM + "_-", 35),
    "bearer_token": lambda: "Authorization: Bearer " + rand(ALNUM, 32),
    "connection_string": lambda: RNG.choice(["postgres", "mysql", "mongodb+srv", "redis"]) + "://"
    + rand(string.ascii_lowercase, 6) + ":" + rand(ALNUM, 12) + "@" + rand(string.ascii_lowercase, 8) + ".internal:5432/db",
    "password": lambda: RNG.choice(["password: ", "my password is ", "pwd=", "パスワードは", "passphrase: "])
    + rand(ALNUM, 6) + RNG.choice(["!", "#", "2024", "$x"]),
    "credential": lambda: RNG.choice(["api_key=", "client_secret: ", "access_token = ", "auth token: "])
    + rand(ALNUM, 28),
    "private_key": lambda: "-----BEGIN " + RNG.choice(["RSA ", "OPENSSH ", "EC ", ""]) + "PRIVATE KEY-----\n"
    + rand(ALNUM + "+/", 64) + "\n-----END PRIVATE KEY-----",
    "email": lambda: rand(string.ascii_lowercase, 6) + RNG.choice([".", "_", ""]) + rand(string.ascii_lowercase, 4)
    + "@" + RNG.choice(["example.com", "mail.co.jp", "corp.example.org", "gmail.com"]),
    "phone": lambda: RNG.choice([
        f"+1 {rand(string.digits, 3)} {rand(string.digits, 3)} {rand(string.digits, 4)}",
        f"({rand('23456789', 1)}{rand(string.digits, 2)}) {rand(string.digits, 3)}-{rand(string.digits, 4)}",
        f"+33 6 {rand(string.digits, 2)} {rand(string.digits, 2)} {rand(string.digits, 2)} {rand(string.digits, 2)}",
        f"090-{rand(string.digits, 4)}-{rand(string.digits, 4)}",
        f"+81 90 {rand(string.digits, 4)} {rand(string.digits, 4)}",
        f"+44 20 {rand(string.digits, 4)} {rand(string.digits, 4)}",
        f"{rand('23456789', 1)}{rand(string.digits, 2)}.{rand(string.digits, 3)}.{rand(string.digits, 4)}",
    ]),
    "card_number": lambda: RNG.choice([
        luhn_complete("4", 16), luhn_complete("51", 16), luhn_complete("37", 15), luhn_complete("6011", 16),
    ]),
    "iban": lambda: iban(RNG.choice(["DE", "FR", "GB", "NL"]), RNG.choice([22, 27, 22, 18])),
    "ssn": lambda: f"{rand('12345678', 3)}-{rand(string.digits, 2)}-{rand(string.digits, 4)}",
}

TEMPLATES = [
    "FYI the value is {} so keep it handy.",
    "Deployed the bot with {} yesterday.",
    "note to self: {}",
    "Can you check {} before the demo?",
    "明日の会議で {} を使います。",
]


def labelled(per_kind: int = 8) -> list[tuple[str, str, str]]:
    items = []
    for kind, make in GENERATORS.items():
        for i in range(per_kind):
            value = make()
            items.append((kind, value, TEMPLATES[i % len(TEMPLATES)].format(value)))
    return items


def caught(mem: Memory, value: str, text: str) -> bool:
    try:
        result = mem.record(content=text)
    except PrivacyRefused:
        return True
    stored = mem.get([result.id])[0].content
    return value not in stored


def main() -> None:
    items = labelled()
    per_kind: dict[str, list[int]] = collections.defaultdict(lambda: [0, 0])
    missed = []
    with Memory.in_memory() as mem:
        for kind, value, text in items:
            hit = caught(mem, value, text)
            per_kind[kind][0] += int(hit)
            per_kind[kind][1] += 1
            if not hit:
                missed.append({"kind": kind, "text": text})

    conversations = json.loads(dataset("locomo", "locomo10.json").read_text())
    turns = [
        " ".join(filter(None, [turn.get("text"), turn.get("blip_caption")]))
        for conv in conversations for key, session in conv["conversation"].items()
        if key.startswith("session_") and isinstance(session, list) for turn in session
    ]
    false_positives = [(t, [f.kind for f in scan(t)]) for t in turns if scan(t)]

    caught_total = sum(v[0] for v in per_kind.values())
    rows = [[k, v[1], v[0], v[0] / v[1]] for k, v in sorted(per_kind.items())]
    rows.append(["all secrets and PII", len(items), caught_total, caught_total / len(items)])
    print(table(["kind", "items", "caught", "recall"], rows))
    fp_rate = len(false_positives) / len(turns)
    print(f"\nordinary text: {len(turns):,} LoCoMo turns, {len(false_positives)} flagged, false-positive rate {fp_rate:.4%}")
    for text, kinds in false_positives[:10]:
        print(f"  flagged {kinds}: {text[:100]!r}")
    write_results("privacy", {
        "recall": caught_total / len(items), "items": len(items), "per_kind": {r[0]: r[3] for r in rows},
        "missed": missed, "ordinary_sentences": len(turns), "false_positives": len(false_positives),
        "false_positive_rate": fp_rate, "flagged_examples": false_positives[:20],
    })


if __name__ == "__main__":
    main()
