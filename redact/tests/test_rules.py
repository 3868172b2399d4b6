"""Rule behaviour at the edges: exact outputs, near misses, overlaps, validators."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import (
    BUILTIN_RULES,
    RULE_SETS,
    RedactionConfig,
    TextRedactor,
    build_redactor,
    checks,
)
from amplifier_hooks_redact.checks import is_card_number, looks_random, luhn_valid

GH = "ghp_" + "a1B2c3D4e5F6g7H8i9J0" + "kLmNoPqRsTuVwXyZ"  # 36 characters after ghp_


def redact(text: str, *rules: str) -> tuple[str, dict[str, int]]:
    return build_redactor(RedactionConfig(rules=rules or ("all",))).redact_text(text)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("call (555) 234-5678 now", "call [REDACTED:phone] now"),
        ("tel:+1-816-555-1212.", "tel:[REDACTED:phone]."),
        ("+44 (0)20 7946 0958", "[REDACTED:phone]"),
        (
            "office: 020 7946 0958, mobile 07700 900123",
            "office: [REDACTED:phone], mobile [REDACTED:phone]",
        ),
        ("4111 1111 1111 1111", "[REDACTED:payment_card]"),
        ("Amex 3782-822463-10005.", "Amex [REDACTED:payment_card]."),
        ("exp 2027 4111 1111 1111 1111", "exp 2027 [REDACTED:payment_card]"),
        ("(555) 234-5678 4111 1111 1111 1111", "[REDACTED:phone] [REDACTED:payment_card]"),
        ("mail <Jo.Doe+tag@Example.co.uk>", "mail <[REDACTED:email]>"),
        ("user_name@example.org", "[REDACTED:email]"),
        (f"api_key={GH}", "api_key=[REDACTED:github_token]"),
        ("postgres://app:s3cr3t@db:5432/x", "postgres://[REDACTED:url_credentials]@db:5432/x"),
        ('{"password": "hunter2"}', '{"password": "[REDACTED:credential_assignment]"}'),
        ("PASSWORD=hunter2", "PASSWORD=[REDACTED:credential_assignment]"),
        ("db_password: 'it is long'", "db_password: '[REDACTED:credential_assignment]'"),
        ('client.secret = "abc def";', 'client.secret = "[REDACTED:credential_assignment]";'),
    ],
)
def test_exact_output(text: str, expected: str) -> None:
    assert redact(text)[0] == expected


@pytest.mark.parametrize(
    "text",
    [
        # timestamps, offsets and versions
        "2024-01-15T10:30:00.123456+05:30",
        "2024-01-15 10:30:00 +0530",
        "1.2.3+20240115103000",
        "10.0.19045.2965",
        "192.168.100.200",
        "Decimal('+35236450.6')",
        "@@ -12,7 +12,8 @@ def f():",
        "12:555-234-5678",
        # digits inside tokens
        "550e8400-e29b-41d4-a716-446655440000",
        "00000000-0000-0000-0000-000000000000",
        "build-555-234-5678-linux",
        "/tmp/555-234-5678/x",
        "v555.234.5678.1",
        "a4111111111111111b",
        "1718000000000",
        # byte dumps
        "<Buffer 00 00 00 00 00>",
        "00000000  7f 45 4c 46 02 01 01 00  00 00 00 00 00 00 00 00  |.ELF............|",
        "7f45 4c46 4111 1111 1111 1111 0200",
        # code, placeholders, numbers
        "client = OpenAI(api_key=api_key)",
        "def connect(password: str, token: str | None = None) -> None:",
        "api_key: Optional[str] = None",
        "apiKey: process.env.API_KEY,",
        "token = os.environ['TOKEN']",
        "password = getpass.getpass('Password: ')",
        'print("shlex: token=" + repr(raw))',
        "token = b64encode(userpass).decode()",
        "max_tokens=4096, input_token: 12",
        "Token: '#d8dee9',",
        'password="${DB_PASSWORD}"',
        "PASSWORD=$(cat /run/secrets/db)",
        'password: "********"',
        "api_key: '<your-api-key>'",
        'token: "{{ vault_token }}"',
        "password = %(password)s",
        "password == other",
        "passwordless: true",
        # look-alikes of keys
        "sk-this-is-a-long-hyphenated-slug-name",
        "task-0123456789abcdefghijkl",
        "the bearer of this letter",
        "ghp_short",
        # addresses that are not email addresses
        "git@github.com:org/repo.git",
        "ssh://git@github.com/org/repo.git",
        "assets/icon@2x.png",
        "npm install react@18.2.0 @types/node",
        "https://medium.com/@author/post-1",
        "https://example.com:8080/path?q=1",
    ],
)
def test_near_misses_are_untouched(text: str) -> None:
    assert redact(text) == (text, {})


def test_overlap_prefers_the_earlier_start_then_the_earlier_rule() -> None:
    text = f'token = "{GH}" mail a@example.com'
    assert redact(text) == (
        'token = "[REDACTED:github_token]" mail [REDACTED:email]',
        {"github_token": 1, "email": 1},
    )
    assert redact("redis://:pa55@cache.example.com") == (
        "redis://[REDACTED:url_credentials]@cache.example.com",
        {"url_credentials": 1},
    )


@pytest.mark.parametrize(
    "text",
    [
        f"{GH}(555) 234-5678",  # a phone glued to a key stays glued to its marker
        f"(555) 234-5678{GH}",
        f"{GH}: hunter2x",  # the marker ends in "token]", which is not an assignment key
        "AIzaSyA1234567890abcdefghijklmnopqrstuv = 'abc123'",  # ... nor "api_key]"
        f"x@example.com{GH}",
    ],
)
def test_redacting_redacted_text_finds_nothing_new(text: str) -> None:
    once, _ = redact(text)
    assert redact(once) == (once, {})


def test_case_insensitive_rules_survive_text_whose_lower_case_changes_length() -> None:
    # "İ".lower() is two characters: spans must still land on the original text.
    text = "İstanbul PASSWORD=hunter2x Authorization: Bearer abcDEF1234567890xyz"
    assert "İ".lower() != "i"
    assert len(text.lower()) != len(text)
    assert redact(text) == (
        "İstanbul PASSWORD=[REDACTED:credential_assignment] "
        "Authorization: Bearer [REDACTED:auth_header]",
        {"credential_assignment": 1, "auth_header": 1},
    )


def test_truncated_private_key_is_redacted_to_the_end_of_its_body() -> None:
    text = "key:\n-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\nQUJD\n(truncated)"
    assert redact(text) == ("key:\n[REDACTED:private_key](truncated)", {"private_key": 1})


def test_checks() -> None:
    assert luhn_valid("4111111111111111")
    assert not luhn_valid("4111111111111112")
    assert is_card_number("4111-1111-1111-1111")
    assert is_card_number("378282246310005")
    assert not is_card_number("1111111111111117")  # Luhn-valid, but no card network starts with 1
    assert not is_card_number("4111111111111")  # Visa length, Luhn-invalid
    assert is_card_number("2221000000000009")  # Mastercard 2-series, its lowest prefix
    assert not is_card_number("3000000000007")  # Diners prefix and Luhn, a length Diners never uses
    assert looks_random("abc1")
    assert looks_random("abcD")
    assert not looks_random("some-slug-name")


def test_no_card_network_prefix_begins_another() -> None:
    """A number's network is decided by the first prefix that fits: none may shadow another."""
    prefixes = list(checks._PREFIX_LENGTHS)
    for prefix in prefixes:
        assert not any(prefix[:width] in checks._PREFIX_LENGTHS for width in range(1, len(prefix)))


def test_rule_sets_cover_every_builtin_rule_once() -> None:
    names = [rule.name for rule in BUILTIN_RULES]
    assert len(names) == len(set(names))
    assert set(RULE_SETS["secrets"]) | set(RULE_SETS["pii"]) == set(names)
    assert not set(RULE_SETS["secrets"]) & set(RULE_SETS["pii"])
    assert RULE_SETS["pii-basic"] == RULE_SETS["pii"]
    assert set(RULE_SETS["all"]) == set(names)


def test_results_are_cached_per_string_without_sharing_counts() -> None:
    redactor = TextRedactor(BUILTIN_RULES)
    text = f"x {GH} y"
    first = redactor.redact(text)
    assert first is not None
    first[1]["github_token"] = 99  # a caller mutating its counts must not poison the cache
    assert redactor.redact(text) == ("x [REDACTED:github_token] y", {"github_token": 1})
    assert redactor.redact("nothing here") is None
    assert redactor.redact("nothing here") is None


FRAGMENTS = [
    GH,
    "a@example.com",
    "(555) 234-5678",
    "+44 20 7946 0958",
    "4111 1111 1111 1111",
    "password=hunter2x",
    "2024-01-15T10:30:00Z",
    "550e8400-e29b-41d4-a716-446655440000",
    "1718000000000",
    "v1.2.3",
    "://u:p@h",
    "-----BEGIN PRIVATE KEY-----\nQUJD\n-----END PRIVATE KEY-----",
    "AKIAIOSFODNN7EXAMPLE",
]


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.sampled_from(FRAGMENTS),
            st.text(alphabet="0123456789 .-+()@:=_'\"abcXYZ\n", max_size=12),
        ),
        max_size=12,
    ),
    st.sampled_from([" ", "\n", ", ", " | ", "\t", "; "]),
)
def test_first_pass_keeps_everything_outside_its_spans_and_redaction_is_idempotent(
    parts: list[str], separator: str
) -> None:
    text = separator.join(parts)
    redactor = TextRedactor(BUILTIN_RULES)
    spans = redactor.find(text)
    rebuilt, position = [], 0
    for start, end, rule in spans:
        assert position <= start < end <= len(text)
        rebuilt.append(text[position:start] + f"[REDACTED:{rule}]")
        position = end
    rebuilt.append(text[position:])
    once = redactor.redact(text)
    result = once[0] if once else text
    if result != "".join(rebuilt):  # a later pass found more: only inside what was left
        assert len(redactor.find("".join(rebuilt))) > 0
    assert redactor.redact(result) is None, (text, result)


@pytest.mark.parametrize(
    "after",
    ["=", "abc"],  # padding, or a longer run: base64 data, not a 40-character key
)
def test_a_run_cut_at_the_key_pairs_reach_is_not_taken_for_its_key(after: str) -> None:
    key = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    text = "AKIAIOSFODNN7EXAMPLE" + " " * 160 + key + after  # the run ends at the reach
    assert TextRedactor(BUILTIN_RULES).find(text) == [(0, 20, "aws_access_key_id")]
