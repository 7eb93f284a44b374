import pytest

from graphmem.privacy import mask, scan


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("key AKIAIOSFODNN7EXAMPLE in env", "aws_access_key"),
        ("use ghp_0123456789abcdefghijABCDEFGHIJ012345 for CI", "github_token"),
        ("OPENAI_API_KEY=sk-proj-abcdefghijklmnopqrstuvwxyz012345", "api_key"),
        ("token xoxb-123456789012-abcdefghijkl", "slack_token"),
        ("Authorization: Bearer abcdefghijklmnopqrstuvwxyz123456", "bearer_token"),
        ("postgres://admin:s3cr3t@db.internal:5432/app", "connection_string"),
        ("my password is hunter2!", "password"),
        ("パスワード: tanuki2024", "password"),
        ("-----BEGIN RSA PRIVATE KEY-----\nMIIEow\n-----END RSA PRIVATE KEY-----", "private_key"),
        ("bot 123456789:ABCdefGhIJKlmNoPQRstuVWXyz0123456789a", "telegram_bot_token"),
        ("write to peter.smith@example.com", "email"),
        ("call +33 6 12 34 56 78 tonight", "phone"),
        ("call (415) 555-0132", "phone"),
        ("携帯は090-1234-5678です", "phone"),
        ("card 4111 1111 1111 1111 exp 12/29", "card_number"),
        ("IBAN DE89 3704 0044 0532 0130 00", "iban"),
    ],
)
def test_finds_secrets_and_personal_data(text, kind):
    assert kind in {f.kind for f in scan(text)}


@pytest.mark.parametrize(
    "text",
    [
        "We met on 2023-05-08 at 10:30 and talked for 2 hours.",
        "The secret is patience and a good playlist.",
        "My password is weak, I should change it.",
        "I ran 5 miles in 45:12 last Saturday, 3 weeks before the race.",
        "Order #4111111111111112 shipped",  # fails the Luhn check
        "The token economy in games is fascinating.",
        "Call me maybe, around 7pm on May 8th, 2023.",
        "Version 1.2.3 was released in 2024-01.",
    ],
)
def test_leaves_ordinary_text_alone(text):
    assert scan(text) == []


def test_mask_replaces_each_finding_with_its_kind():
    text = "mail a@b.io or call +1 415 555 0132"
    assert mask(text, scan(text)) == "mail [REDACTED:email] or call [REDACTED:phone]"


def test_keys_ending_in_a_dash_are_still_found():
    assert [f.kind for f in scan("key AIzaSLYfhz-t01x7OW3A0fmM9W8TZg2HYSbwDK- here")] == ["google_api_key"]
