"""A corpus of fake secrets and of ordinary text, from a fixed seed, by category.

Secrets follow the issuers' documented formats and are written the way they leak: in shell
lines, ``.env`` and YAML files, JSON, XML, INI, ``.netrc``, logs and prose. None is a real
credential. Ordinary text is what a coding session is full of and must come through untouched:
identifiers, hashes, UUIDs, versions, paths, timestamps, counts, base64 of plain data.

``secrets()`` yields ``(category, text, secret)``: after redaction no part of ``secret`` of
four characters or more may remain. ``ordinary()`` yields ``(category, text)``.
``bench/redaction_corpus.py`` prints the figures; ``test_corpus.py`` holds them to a floor.
"""

from __future__ import annotations

import base64
import random
import string
import uuid
from collections.abc import Callable, Iterator
from urllib.parse import quote

__all__ = ["ORDINARY_PER_CATEGORY", "SECRETS_PER_CATEGORY", "ordinary", "secrets"]

SECRETS_PER_CATEGORY = 36
ORDINARY_PER_CATEGORY = 150
ALNUM = string.ascii_letters + string.digits
HEX = "0123456789abcdef"
PUNCT = "!#%^*_~-@"


def _pick(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def _password(rng: random.Random) -> str:
    return _pick(rng, ALNUM + PUNCT, rng.randint(9, 22)) + rng.choice(string.digits)


def _vendor(rng: random.Random) -> tuple[str, str]:
    token = rng.choice(
        [
            lambda: "npm_" + _pick(rng, ALNUM, 36),
            lambda: "hf_" + _pick(rng, string.ascii_letters, 34),
            lambda: "SG." + _pick(rng, ALNUM, 22) + "." + _pick(rng, ALNUM, 43),
            lambda: "pypi-AgEIcHlwaS5vcmc" + _pick(rng, ALNUM, 70),
            lambda: "dop_v1_" + _pick(rng, HEX, 64),
            lambda: "shpat_" + _pick(rng, HEX, 32),
            lambda: "glpat-" + _pick(rng, ALNUM, 20),
            lambda: "whsec_" + _pick(rng, ALNUM, 32),
            lambda: "sk_live_" + _pick(rng, ALNUM, 24),
            lambda: "ghp_" + _pick(rng, ALNUM, 36),
            lambda: "xoxb-" + _pick(rng, string.digits, 12) + "-" + _pick(rng, ALNUM, 24),
            lambda: "AIza" + _pick(rng, ALNUM, 35),
            lambda: "sk-ant-api03-" + _pick(rng, ALNUM, 80),
            lambda: "sk-proj-" + _pick(rng, ALNUM, 48),
            lambda: "hvs." + _pick(rng, ALNUM, 24),
            lambda: "lin_api_" + _pick(rng, ALNUM, 40),
        ]
    )()
    line = rng.choice(
        [
            "export TOKEN_VALUE={t}",
            "Using credentials {t} for the upload",
            '{{"token": "{t}", "scope": "publish"}}',
            "  api: {t}",
            "curl -H 'Authorization: Bearer {t}' https://api.example.com",
        ]
    )
    return line.format(t=token), token


def _telegram(rng: random.Random) -> tuple[str, str]:
    token = f"{rng.randint(10**8, 10**10 - 1)}:AA{_pick(rng, ALNUM, 33)}"
    return f"BOT_URL=https://api.telegram.org/bot{token}/sendMessage", token


def _azure(rng: random.Random) -> tuple[str, str]:
    key = _pick(rng, ALNUM + "+/", 86) + "=="
    return (
        f"DefaultEndpointsProtocol=https;AccountName=store{rng.randint(1, 99)};"
        f"AccountKey={key};EndpointSuffix=core.windows.net",
        key,
    )


def _cli(rng: random.Random) -> tuple[str, str]:
    value = _pick(rng, ALNUM + "!#%^*_~", rng.randint(9, 20)) + rng.choice(string.digits)
    line = rng.choice(
        [
            "mysql -h db -u root -p{v} shop",
            "psql --password {v} -h db app",
            "curl -u admin:{v} https://ci.example.com/job",
            "sshpass -p '{v}' ssh deploy@10.0.0.4",
            "docker login -u bot -p {v} registry.example.com",
            "redis-cli -a {v} -h cache",
            "mysqldump --password={v} app > app.sql",
        ]
    )
    return "$ " + line.format(v=value), value


def _netrc(rng: random.Random) -> tuple[str, str]:
    value = _password(rng)
    return f"machine api.example.com\n  login deploy\n  password {value}\n", value


def _xml(rng: random.Random) -> tuple[str, str]:
    value = _password(rng)
    tag = rng.choice(["password", "apiKey", "secret", "clientSecret", "token"])
    return f"<server>\n  <id>deploy</id>\n  <{tag}>{value}</{tag}>\n</server>", value


def _config_keys(rng: random.Random) -> tuple[str, str]:
    value = _password(rng)
    line = rng.choice(
        [
            "secret_key_base: {v}",
            "pwd: {v}",
            "passwd = {v}",
            "DB_PASS={v}",
            "client_secret = '{v}'",
            '"auth_token": "{v}"',
            "[database]\npassword = {v}",
            "private_key: {v}",
            "ApiKey={v}",
            "MYSQL_ROOT_PASSWORD={v}",
        ]
    )
    return line.format(v=value), value


def _aws_pair(rng: random.Random) -> tuple[str, str]:
    key_id = "AKIA" + _pick(rng, string.ascii_uppercase + string.digits, 16)
    secret = _pick(rng, ALNUM + "/+", 37) + "aZ" + rng.choice(string.digits)
    line = rng.choice(["{i} {s}", "{i},{s}", "key: {i}\nsecret: {s}", "{i}\t{s}"])
    return line.format(i=key_id, s=secret), secret


def _base64(rng: random.Random) -> tuple[str, str]:
    user = _pick(rng, string.ascii_lowercase, rng.randint(3, 9))
    encoded = base64.b64encode(f"{user}:{_password(rng)}".encode()).decode()
    line = rng.choice(
        [
            '{{"auths": {{"ghcr.io": {{"auth": "{c}"}}}}}}',
            "Authorization: Basic {c}",
            "curl -H 'Authorization: Basic {c}' https://x.example.com",
        ]
    )
    return line.format(c=encoded), encoded


def _url_encoded(rng: random.Random) -> tuple[str, str]:
    raw = _password(rng) + "@/:"
    encoded = quote(raw, safe="")
    return f"DATABASE_URL=postgres://app:{encoded}@db.internal:5432/app", encoded


def _multi_line(rng: random.Random) -> tuple[str, str]:
    body = "\n".join(_pick(rng, ALNUM + "+/", 64) for _ in range(rng.randint(3, 8)))
    return f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----", body


def _escaped(rng: random.Random) -> tuple[str, str]:
    value = _pick(rng, ALNUM, 6) + '\\"' + _pick(rng, ALNUM, 3) + "\\\\" + _pick(rng, ALNUM, 4)
    value = value + rng.choice(string.digits)
    return f'password = "{value}"', value


def _ampersand(rng: random.Random) -> tuple[str, str]:
    value = _pick(rng, ALNUM, 8) + "&" + rng.choice(string.digits) + _pick(rng, ALNUM, 2)
    return f"PASSWORD={value}", value


def _prose(rng: random.Random) -> tuple[str, str]:
    value = _password(rng)
    line = rng.choice(
        [
            "The password is {v} until Friday.",
            "Use password: {v} for the staging box",
            "fyi the admin passphrase was {v}",
        ]
    )
    return line.format(v=value), value


SECRET_CATEGORIES: dict[str, Callable[[random.Random], tuple[str, str]]] = {
    "vendor tokens": _vendor,
    "telegram": _telegram,
    "azure connection strings": _azure,
    "command-line passwords": _cli,
    ".netrc": _netrc,
    "xml": _xml,
    "yaml/ini/json/env keys": _config_keys,
    "aws key pairs": _aws_pair,
    "base64 credentials": _base64,
    "url-encoded credentials": _url_encoded,
    "multi-line": _multi_line,
    "escaped quotes": _escaped,
    "ampersand values": _ampersand,
    "prose": _prose,
}


def secrets(per_category: int = SECRETS_PER_CATEGORY) -> Iterator[tuple[str, str, str]]:
    """``(category, text, secret)`` for every fake secret of the corpus."""
    for category, make in SECRET_CATEGORIES.items():
        rng = random.Random(f"corpus-secret-{category}")
        for _ in range(per_category):
            text, secret = make(rng)
            yield category, text, secret


def _identifiers(rng: random.Random) -> str:
    words = ["user", "token", "count", "parse", "request", "session", "key", "cache", "value"]
    name = "_".join(rng.sample(words, rng.randint(2, 4)))
    return rng.choice(
        [
            f"def {name}(self, {rng.choice(words)}: str) -> None:",
            f"{name} = {rng.choice(words)}_{rng.choice(words)}",
            f"self.{name}.append({rng.choice(words)})",
            f"max_{rng.choice(words)}_tokens: {rng.randint(1, 9999)}",
            f"token_type: {rng.choice(['bearer', 'refresh', 'access'])}",
            f"password = getpass.getpass('{rng.choice(words).title()}: ')",
        ]
    )


def _hashes(rng: random.Random) -> str:
    return rng.choice(
        [
            f"sha256:{_pick(rng, HEX, 64)}",
            f"commit {_pick(rng, HEX, 40)}",
            f"Merge: {_pick(rng, HEX, 7)} {_pick(rng, HEX, 7)}",
            f"integrity sha512-{base64.b64encode(rng.randbytes(64)).decode()}",
            f'etag: W/"{_pick(rng, HEX, 32)}"',
        ]
    )


def _ids(rng: random.Random) -> str:
    return rng.choice(
        [
            f"request_id={uuid.UUID(int=rng.getrandbits(128))}",
            f"run {uuid.UUID(int=rng.getrandbits(128))} finished",
            f"trace-id: {_pick(rng, HEX, 32)}",
        ]
    )


def _versions_paths(rng: random.Random) -> str:
    return rng.choice(
        [
            f"pydantic=={rng.randint(1, 2)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}",
            f"/usr/lib/python3.{rng.randint(8, 13)}/site-packages/foo/bar_{rng.randint(1, 99)}.py",
            f"src/app/{_pick(rng, string.ascii_lowercase, 6)}/handlers.py:{rng.randint(1, 999)}",
            f"https://github.com/org/repo/blob/main/src/{_pick(rng, string.ascii_lowercase, 5)}.ts",
        ]
    )


def _logs(rng: random.Random) -> str:
    return rng.choice(
        [
            f"2026-11-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:00Z "
            f"INFO done in {rng.randint(1, 999)} ms",
            f"{rng.randint(100, 999)} {rng.randint(100, 999)} {rng.randint(1000, 9999)} "
            "tests passed",
            f"{rng.randint(1, 9999)} passed, {rng.randint(0, 99)} skipped in {rng.random():.2f}s",
            f"epoch {rng.randint(1_600_000_000_000, 1_800_000_000_000)} processed",
            f"port {rng.randint(1024, 65535)} pid {rng.randint(100, 99999)}",
        ]
    )


def _plain_base64(rng: random.Random) -> str:
    data = rng.choice([b"hello world", b"just some text", b'{"a": 1}', rng.randbytes(24)])
    return rng.choice(
        [
            f"data:image/png;base64,{base64.b64encode(rng.randbytes(30)).decode()}",
            f"payload = '{base64.b64encode(data).decode()}'",
            f"content: {base64.b64encode(data).decode()}",
        ]
    )


def _prose_plain(rng: random.Random) -> str:
    return rng.choice(
        [
            "The password is correct, you can log in now.",
            "Reset the password in the settings page.",
            "Rotate the token before the release.",
            "The secret to fast tests is fewer processes.",
            f"Step {rng.randint(1, 9)}: run the linter, then the type checker.",
        ]
    )


ORDINARY_CATEGORIES: dict[str, Callable[[random.Random], str]] = {
    "identifiers": _identifiers,
    "hashes": _hashes,
    "ids": _ids,
    "versions and paths": _versions_paths,
    "logs and counts": _logs,
    "plain base64": _plain_base64,
    "prose": _prose_plain,
}


def ordinary(per_category: int = ORDINARY_PER_CATEGORY) -> Iterator[tuple[str, str]]:
    """``(category, text)`` for every ordinary line of the corpus."""
    for category, make in ORDINARY_CATEGORIES.items():
        rng = random.Random(f"corpus-ordinary-{category}")
        for _ in range(per_category):
            yield category, make(rng)
