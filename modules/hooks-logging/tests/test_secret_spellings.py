"""Secrets in spellings an attacker tries, each written as the leak: the exact text goes to the
redaction engine and, through a real registry's emit, to hooks-logging's file; the secret must
be in neither. Families: characters glued before, after or inside a token (any letter or digit,
combining marks, zero-width and format characters, ANSI and OSC 8 sequences), escapes written
as text, encodings, credentials on command lines, short key names and name/value pairs, YAML
values on the next line, connection strings, private keys in odd framing, vendor tokens in
nested data, tokens split by concatenation, case changes. Ordinary look-alikes come back as
they were.

A needle is the part of a secret that must not survive: the token's random body (so a prefix
left in place is no leak), or the escaped spelling itself. Invisible characters and terminal
sequences are removed from what is checked, as a reader would see past them.
"""

from __future__ import annotations

import asyncio
import base64
import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from amplifier_core.hooks import HookRegistry
from amplifier_hooks_redact import RedactionConfig, build_redactor
from amplifier_module_hooks_logging import mount

GH = "ghp_" + "R7mK2xQ9vL4pW8nT3bY6cH1jF5sD0gZaEuNi"
AWS = "AKIA" + "Q3M7Z2XK9WPL4TRV"
SLACK = "xoxb-" + "2847561930-7461029385-Kq9Lm3Xv7Tn2Wp5Rb8Yc4Hd"
ANT = "sk-ant-api03-" + "Zp4Qw8Xm2Kv7Ln3Rt9Bc5Hj1Df6Gs0YaUe3Ox8Ic2Mb7Nq4Tw9Vr5Ps1Kl6Jh0Gf-AbCdEfAA"
OAI = "sk-proj-" + "Hq7Zm3Xw9Kp2Lv8Rt4Bc6Nj1Df5Gs0YaUe3Ox8Ic2Mb7T3BlbkFJNq4Tw9Vr5Ps1Kl6"
GOOG = "AIza" + "SyB7xK2mQ9vL4pW8nT3bY6cH1jF5sD0gZaE"
STRIPE = "sk_live_" + "51HkQ9xL2mV7pW4nT8bY3cR6jF1sD0gZa"
GL = "glpat-" + "Xq7Zm3Kw9Lp2Rv8Tn4Bc"
HF = "hf_" + "QwErTyUiOpAsDfGhJkLzXcVbNmQwErTyUi"
NPM = "npm_" + "Zk8Lm2Qx7Rv3Tn9Wp4Bc6Hj1Df5Gs0YaUeOx"
PW = "S3cretP4ssW0rd9"
HEX40 = "3f9a1c7e5b2d8f0a4c6e1b3d5f7a9c2e4b6d8f01"
UUID = "9f3c2a1b-7e4d-4c8a-b6f2-1d3e5a7c9b0f"
OKTA = "00aBcD3fGh1jKlMn0pQrStUvWxYz2345678901ab"
VAULT = "Xq7Zm3Kw9Lp2Rv8Tn4BcYa1D"

GHB, AWSB, SLACKB, ANTB, OAIB = GH[4:], AWS[4:], SLACK[5:], ANT[13:40], OAI[8:40]
GOOGB, STRIPEB, GLB, HFB, NPMB = GOOG[4:], STRIPE[8:], GL[6:], HF[3:], NPM[4:]


def b64(text: str) -> str:
    return base64.b64encode(text.encode()).decode()


def escaped(text: str) -> str:
    """Every character as a JSON ``\\uXXXX`` escape."""
    return "".join(f"\\u{ord(char):04x}" for char in text)


def inside(token: str, glue: str) -> str:
    return token[:8] + glue + token[8:]


KEY_BODY = (
    "MIIEowIBAAKCAQEAvRz3Xq9Kp2Lm8Nb4Vc6Wx1Yz5Ta7Sd3Fg9Hj2Kl4Qw8Er6Ty0Ui3Op5As7Df9Gh1Jk3Lz5Xc7Vb9"
    "Nm2Qw4Er6Ty8Ui0Op2As4Df6Gh8Jk0Lz"
)
PEM_LINES = [
    "-----BEGIN RSA PRIVATE KEY-----",
    *(KEY_BODY[i : i + 64] for i in range(0, len(KEY_BODY), 64)),
    "-----END RSA PRIVATE KEY-----",
]
PEM = "\n".join(PEM_LINES) + "\n"
OPENSSH_BODY = (
    "b3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAEbm9uZQAAAAAAAAABAAAAMwAAAAtzc2gtZWQyNTUxOQAAACB3Zk9X"
    "q2Lm8Nb4Vc6Wx1Yz5Ta7Sd3Fg9Hj2Kl4Qw8Er6Ty0Ui3Op5"
)
ENV_FILE = (
    "# production settings for the deploy pipeline\nDATABASE_URL=postgres://db.internal/app\n"
    f"GITHUB_TOKEN={GH}\nSTRIPE={STRIPE}\n"
) * 2
MIME = base64.encodebytes(ENV_FILE.encode()).decode()
B32 = base64.b32encode(GH.encode()).decode()
B32_PW = base64.b32encode(f"password={PW}".encode()).decode()
B64URL = base64.urlsafe_b64encode(f"token={GH}".encode()).decode().rstrip("=")


class Opaque:
    """An object whose repr holds a token (what a logger writes for it)."""

    def __repr__(self) -> str:
        return f"Credential(token={HF!r}, scope='all')"


# (family, text or data, needles)
CASES: list[tuple[str, Any, tuple[str, ...]]] = [
    # Glued before and after: any letter or digit, marks, format characters, terminal codes.
    *(
        ("glue", f"value{glue}{GH}{glue}tail", (GHB,))
        for glue in ("é", "日", "٣", "Ⅻ", "\uff47", "ß", "e\u0301", "\u2060", "\ufeff", "\u00ad")
    ),
    ("glue", f"value\u200b{SLACK}\u200d.", (SLACKB,)),
    ("glue", f"x\u0301{AWS}\u0301", (AWSB,)),
    ("glue", f"id={AWS}abc", (AWSB,)),
    ("glue", f"\x1b]8;;https://example.com/t\x1b\\{GH}\x1b]8;;\x1b\\", (GHB,)),
    ("glue", f"\x1b[38;2;255;100;0m{SLACK}\x1b[0m", (SLACKB,)),
    ("glue", f"\x1b[38;2;255;100;0mpwd={PW}\x1b[0m", (PW,)),
    ("glue", f"\x1b[1;4;38;5;196;48;5;16mpassword={PW}\x1b[0m", (PW,)),
    ("glue", f"loading...\r{STRIPE}\rdone", (STRIPEB,)),
    ("glue", f"\x1b(B\x1b[m{AWS}", (AWSB,)),
    ("glue", f"\x1b7\x1b[2K{ANT}", (ANTB,)),
    # Inside the token: what displays as nothing.
    *(
        ("inside", f"token is {inside(GH, glue)} here", (GHB[4:],))
        for glue in ("\u200b", "\u2060", "\ufeff", "\u00ad", "\u200c", "\u0301", "\u034f")
    ),
    *(
        ("inside", f"token is {inside(GH, glue)} here", (GHB[4:],))
        for glue in ("\x1b[0m", "\x1b[1;31m", "\x1b]8;;\x1b\\", "\x1b[38;2;1;2;3m")
    ),
    ("inside", f"key {GOOG[:2]}\u200b{GOOG[2:]}", (GOOGB,)),
    ("inside", f"p\u200bassword={PW}", (PW,)),
    ("inside", f"pass\x1b[0mword: {PW}", (PW,)),
    # Escapes written as text.
    ("escape", f'{{"t": "\\u0067hp_{GHB}"}}', (GHB,)),
    ("escape", f'{{"t": "{escaped(GH)}"}}', (escaped(GHB)[:60],)),
    ("escape", f"printf '\\x41KIA{AWSB}'", (AWSB,)),
    ("escape", f"echo $'\\x67\\x68\\x70_{GHB}'", (GHB,)),
    ("escape", f"s = '\\101KIA{AWSB}'", (AWSB,)),
    ("escape", f"<code>&#x67;hp_{GHB}</code>", (GHB,)),
    ("escape", f"<td>&#103;&#104;&#112;_{GHB}</td>", (GHB,)),
    ("escape", f"{{&quot;password&quot;: &quot;{PW}&quot;}}", (PW,)),
    ("escape", f"{{\\u0022password\\u0022: \\u0022{PW}\\u0022}}", (PW,)),
    ("escape", f"password\\u003d{PW}", (PW,)),
    ("escape", f"api_key\\x3d{PW}", (PW,)),
    ("escape", f"Content-Transfer-Encoding: quoted-printable\n\npassword=3D{PW}", (PW,)),
    ("escape", f"GET /cb?code=1&token%3d{PW}&x=1", (PW,)),
    ("escape", f"q=%67hp_{GHB}", (GHB,)),
    ("escape", f"q=%67%68p_{GHB}", (GHB,)),
    ("escape", f"redirect=https%3A%2f%2Fx%2Fy%3Fapi_key%3D{PW}", (PW,)),
    ("escape", f"api%5Fkey%3D{PW}&x=1", (PW,)),
    # Encodings.
    ("encoding", f"secret: {B64URL}", (B64URL[4:40],)),
    ("encoding", f"blob {B32}", (B32[8:40],)),
    ("encoding", f"blob {B32_PW}", (B32_PW[8:40],)),
    ("encoding", f"Content-Transfer-Encoding: base64\n\n{MIME}", (MIME.splitlines()[1],)),
    ("encoding", "data:\r\n" + MIME.replace("\n", "\r\n"), (MIME.splitlines()[1],)),
    ("encoding", json.dumps({"data": MIME}), (MIME.splitlines()[1],)),
    (
        "encoding",
        f"kind: Secret\ndata:\n  token: {b64(HEX40)}\n  password: {b64(PW)}\n",
        (b64(PW),),
    ),
    ("encoding", f"hex: {GH.encode().hex()}", (GH.encode().hex()[8:40],)),
    # Credentials on command lines.
    ("cli", f"PGPASSWORD={PW} psql -h db -U app", (PW,)),
    ("cli", f"PGPASSWORD='{PW}' pg_dump app", (PW,)),
    ("cli", f"docker login -u me -p {PW} ghcr.io", (PW,)),
    ("cli", f"docker login --username me --password={PW}", (PW,)),
    ("cli", f"curl -u admin:{PW} https://x", (PW,)),
    ("cli", f"curl -uadmin:{PW} https://x", (PW,)),
    ("cli", f"curl --token {HEX40} https://x", (HEX40,)),
    ("cli", f"curl -H 'X-API-Key: {HEX40}' https://x", (HEX40,)),
    ("cli", f'curl -H "Authorization: token {HEX40}" https://api.github.com', (HEX40,)),
    ("cli", f"curl -H 'Authorization: Token token={HEX40}'", (HEX40,)),
    ("cli", f"curl -H 'Authorization: SSWS {OKTA}' https://o.okta.com", (OKTA,)),
    ("cli", f"curl -H 'Authorization: {HEX40}' https://x", (HEX40,)),
    ("cli", f"git clone https://oauth2:{HEX40}@gitlab.com/org/repo.git", (HEX40,)),
    ("cli", f"git clone https://{HEX40}@github.com/org/repo.git", (HEX40,)),
    ("cli", f"git remote add origin https://x-access-token:{HEX40}@github.com/o/r", (HEX40,)),
    ("cli", f"npm config set //registry.npmjs.org/:_authToken={UUID}", (UUID,)),
    ("cli", f"//npm.pkg.github.com/:_authToken={HEX40}", (HEX40,)),
    ("cli", f"heroku config:set SECRET_KEY_BASE={HEX40} -a app", (HEX40,)),
    ("cli", f"HEROKU_API_KEY={UUID} heroku apps", (UUID,)),
    ("cli", f"echo {GH} | gh auth login --with-token", (GHB,)),
    ("cli", f"kubectl --token={HEX40} get pods", (HEX40,)),
    ("cli", f"kubectl get pods --token {PW}Xy", (PW,)),
    ("cli", f"+ export TOKEN={HEX40}", (HEX40,)),
    ("cli", f"++ curl -s -H 'Authorization: Bearer {HEX40}' https://x", (HEX40,)),
    ("cli", f"smbclient //srv/share -U 'CORP\\svc%{PW}'", (PW,)),
    ("cli", f"sqlplus scott/{PW}@//db.example.com:1521/orcl", (PW,)),
    ("cli", f"jdbc:oracle:thin:app/{PW}@db:1521:ORCL", (PW,)),
    ("cli", f"ssh-keygen -t ed25519 -N '{PW}' -f key", (PW,)),
    ("cli", f"openssl enc -aes256 -k {PW} -in f", (PW,)),
    ("cli", f"wget --http-password={PW} https://x", (PW,)),
    ("cli", f"vault login s.{VAULT}", (VAULT,)),
    ("cli", f"mysql -h db -u root --password {PW} app", (PW,)),
    ("cli", f"az login --service-principal -u app -p {PW} --tenant t", (PW,)),
    ("cli", f"helm repo add x https://c --username u --password {PW}", (PW,)),
    ("cli", f"twine upload -u __token__ -p {PW}Z dist/*", (PW,)),
    ("cli", f"net use \\\\srv\\share /user:CORP\\me {PW}", (PW,)),
    # Short key names in every format, name/value pairs, YAML values on the next line.
    ("keys", f'[db]\npw = "{PW}"', (PW,)),
    ("keys", f"[server]\npass={PW}", (PW,)),
    ("keys", f'<add key="DbPassword" value="{PW}" />', (PW,)),
    ("keys", f'<add name="Main" connectionString="Server=x;User Id=sa;Pwd={PW};" />', (PW,)),
    ("keys", f'<entry key="api.token">{HEX40}</entry>', (HEX40,)),
    ("keys", f'<property name="password" value="{PW}"/>', (PW,)),
    ("keys", f"db.pwd={PW}", (PW,)),
    ("keys", f'provider "aws" {{ secret_key = "{PW}" }}', (PW,)),
    ("keys", f"{{pw: '{PW}', user: 'me'}}", (PW,)),
    ("keys", f"conn = psycopg2.connect(host='db', user='app', passwd='{PW}')", (PW,)),
    ("keys", f"login(user, pw={PW!r})", (PW,)),
    ("keys", f"env:\n  - name: DB_PASSWORD\n    value: {PW}\n", (PW,)),
    ("keys", f'"env": [{{"name": "API_TOKEN", "value": "{HEX40}"}}]', (HEX40,)),
    ("keys", f'{{"ParameterKey": "DbPassword", "ParameterValue": "{PW}"}}', (PW,)),
    ("keys", f'Tags: [{{"Key": "secret", "Value": "{PW}"}}]', (PW,)),
    ("keys", f"password: |\n  {PW}\nuser: me", (PW,)),
    ("keys", f"token: >-\n  {HEX40}\n", (HEX40,)),
    ("keys", f"api_key:\n  {HEX40}\n", (HEX40,)),
    ("keys", f"PassWord = {PW}", (PW,)),
    ("keys", f"İ PASSWORD={PW}", (PW,)),
    ("keys", f"export DB_PASS={PW}", (PW,)),
    ("keys", f"set -x\n+ DB_PWD={PW}", (PW,)),
    ("keys", f"client_secret: {HEX40}", (HEX40,)),
    ("keys", f"mongo.creds={HEX40}", (HEX40,)),
    # Connection strings.
    ("conn", f"postgres://app:{PW}@db:5432/app", (PW,)),
    ("conn", f"mongodb+srv://app:{PW}@cluster0.x.mongodb.net/?retryWrites=true", (PW,)),
    ("conn", f"redis://:{PW}@cache:6379/0", (PW,)),
    ("conn", f"rediss://default:{PW}@cache:6380", (PW,)),
    ("conn", f"jdbc:postgresql://db/app?user=app&password={PW}", (PW,)),
    ("conn", f"jdbc:sqlserver://db;databaseName=app;user=sa;password={PW};", (PW,)),
    ("conn", f"amqp://user:{PW}@mq/vhost", (PW,)),
    ("conn", f"https://app:p@ss{PW}@host/x", (PW,)),
    ("conn", f"Data Source=db;Initial Catalog=app;User ID=sa;Password={PW}", (PW,)),
    ("conn", f"DSN=https://{HEX40[:32]}@o123.ingest.sentry.io/456", (HEX40[:32],)),
    # Private keys in odd framing.
    ("pkey", json.dumps({"private_key": PEM}), (KEY_BODY[20:60],)),
    ("pkey", PEM.replace("\n", "\r\n"), (KEY_BODY[20:60],)),
    ("pkey", "\n".join("> " + line for line in PEM_LINES), (KEY_BODY[20:60],)),
    ("pkey", "\n".join("# " + line for line in PEM_LINES), (KEY_BODY[20:60],)),
    (
        "pkey",
        "key = (\n" + "\n".join(f'    "{line}\\n"' for line in PEM_LINES) + "\n)",
        (KEY_BODY[20:60],),
    ),
    (
        "pkey",
        "\n".join(f"{n:6d}\t{line}" for n, line in enumerate(PEM_LINES, 1)),
        (KEY_BODY[20:60],),
    ),
    ("pkey", json.dumps({"private_key": KEY_BODY * 12}), (KEY_BODY[20:60],)),
    ("pkey", f"key: {KEY_BODY * 3}", (KEY_BODY[20:60],)),
    ("pkey", f"id_ed25519 content: {OPENSSH_BODY}", (OPENSSH_BODY[40:80],)),
    (
        "pkey",
        f"-----BEGIN OPENSSH PRIVATE KEY-----<br>{OPENSSH_BODY}<br>-----END",
        (OPENSSH_BODY[40:80],),
    ),
    (
        "pkey",
        "PuTTY-User-Key-File-3: ssh-ed25519\nEncryption: none\nPublic-Lines: 1\n"
        "AAAAC3NzaC1lZDI1NTE5AAAAIHdmT1erYubw1vhVzpbHVjPlNruOhzm\nPrivate-Lines: 1\n"
        "AAAAIGQ3Zk9Xq2Lm8Nb4Vc6Wx1Yz5Ta7Sd3Fg9Hj2Kl4Qw8Er6Ty0\n"
        "Private-MAC: 3f9a1c7e5b2d8f0a4c6e1b3d5f7a9c2e4b6d8f01aabbccdd\n",
        ("AAAAIGQ3Zk9Xq2Lm8Nb4Vc6Wx1Yz5",),
    ),
    # Vendor tokens in contexts and nested data.
    ("context", f"| name | value |\n|---|---|\n| gh | `{GH}` |", (GHB,)),
    ("context", f"script: |\n  export T={SLACK}\n  run", (SLACKB,)),
    (
        "context",
        'Traceback (most recent call last):\n  File "a.py", line 3\n'
        f"ValueError: bad token {STRIPE!r}",
        (STRIPEB,),
    ),
    ("context", [[[NPM]], [["x", (GL,)]]], (NPMB, GLB)),
    ("context", {"a": {"b": {"c": {OAI: 1, "d": [{ANT: "owner"}]}}}}, (OAIB, ANTB)),
    (
        "context",
        {"output": f"TOKEN={GH}\n".encode(), "raw": bytearray(SLACK.encode())},
        (GHB, SLACKB),
    ),
    (
        "context",
        {"args": ["--token", HEX40, "--user", "me"], "env": {"PGPASSWORD": PW}},
        (HEX40, PW),
    ),
    (
        "keys",
        {"env": [{"name": "API_TOKEN", "value": HEX40}, {"name": "MODE", "value": "ci"}]},
        (HEX40,),
    ),
    ("keys", {"Parameters": [{"ParameterKey": "DbPassword", "ParameterValue": PW}]}, (PW,)),
    ("keys", {"Tags": [{"Key": "client_secret", "Value": PW}]}, (PW,)),
    # Tokens split by concatenation, in several languages.
    ("split", f'const t = "gh" + "p_{GHB}";', (GHB,)),
    ("split", f'const t = "ghp_{GHB[:10]}" +\n  "{GHB[10:]}";', (GHB[10:],)),
    ("split", f't = ("ghp_{GHB[:18]}"\n     "{GHB[18:]}")', (GHB[18:],)),
    ("split", f"T=\"ghp_\"'{GHB}'", (GHB,)),
    ("split", f"T=\"gh\"'p_{GHB}'", (GHB,)),
    ("split", f't = "AK" + "IA{AWSB}"', (AWSB,)),
    ("split", f"t = 'xox' + 'b-{SLACKB}'", (SLACKB,)),
    ("split", f't = ["ghp_", "{GHB}"].join("")', (GHB,)),
    ("split", f't = "".join(["ghp_", "{GHB}"])', (GHB,)),
    ("split", f'$t = "ghp_{GHB[:12]}" . "{GHB[12:]}";', (GHB[12:],)),
    ("split", f't := "sk-ant-" + "api03-{ANT[13:]}"', (ANTB,)),
    # Case changes of key names.
    ("case", f"Api-Key: {HEX40}", (HEX40,)),
    ("case", f"X-AUTH-TOKEN: {HEX40}", (HEX40,)),
    ("case", f"SeCrEt={PW}", (PW,)),
]

# Objects the engine leaves alone (it redacts strings, keys and bytes); the log writes their
# text, redacted.
OBJECTS: list[tuple[Any, tuple[str, ...]]] = [
    ({"thing": Opaque()}, (HFB,)),
    ({"error": ValueError(f"bad key {AWS}")}, (AWSB,)),
    ({"request": [Opaque(), {"nested": (Opaque(),)}]}, (HFB,)),
]

ORDINARY = [
    "commit 4f9c2a1b7e3d5c8a9b0f1e2d3c4b5a6978877665 (HEAD -> main)",
    "git checkout 3f9a1c7",
    "request_id=9f3c2a1b-7e4d-4c8a-b6f2-1d3e5a7c9b0f status=200",
    "payload: SGVsbG8sIHdvcmxkISBUaGlzIGlzIGEgcGxhaW4gbWVzc2FnZS4=",
    f"greeting: {base64.b64encode(b'the quick brown fox jumps over the lazy dog again').decode()}",
    "password_reset_token_ttl = 3600",
    "token_count=123",
    "max_tokens: 4096",
    "GitHub personal access tokens start with ghp_ followed by 36 characters.",
    "Slack bot tokens begin with xoxb- and AWS key ids with AKIA.",
    "def get_token(self) -> str: return self._token",
    "if password:\n    validate(password)",
    "authorization: required",
    "name: password_policy\nvalue: strict",
    "- name: LOG_LEVEL\n  value: debug",
    "https://example.com/search?q=caf%C3%A9+au+lait&page=2",
    "C:\\Users\\me\\AppData\\Local\\Temp",
    "\x1b[01;32mok\x1b[0m 12 tests passed in 0.8s",
    "sha256:9b74c9897bac770ffc029102a200c5de0f6c9b6b0d3c4e2a8f1b7c3d5e6f7a8b",
    "Décembre: café, naïve, Zürich, 日本語のテキスト",
    "&lt;div class=&quot;note&quot;&gt;Hello &amp; welcome&lt;/div&gt;",
    '{"msg": "caf\\u00e9 ouvert \\u00e0 8h"}',
    "ssh-keygen -t ed25519 -f ~/.ssh/id_ed25519",
    "openssl req -new -key server.key -out server.csr",
    "sqlplus / as sysdba",
    'parts = ["gh", "pr", "view"]',
    "x = 'ab' + 'cd'",
    "https://user@example.com/path",
    "token: |\n  see the docs for how to create one\n",
    "env:\n  - name: PASSWORD_MIN_LENGTH\n    value: 12",
    {"name": "password_policy", "value": "strict"}.__repr__(),
]

INVISIBLE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[ -/]*[0-~]"
    r"|[\u00ad\u034f\u0300-\u036f\u200b-\u200f\u2060-\u2064\ufeff]"
)
REDACTOR = build_redactor(RedactionConfig())


def strings(value: Any) -> list[str]:
    """Every string in ``value`` (keys too; bytes decoded; other objects by their repr)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, bytes | bytearray):
        return [bytes(value).decode("utf-8", "surrogateescape")]
    if isinstance(value, dict):
        return [s for key, item in value.items() for s in (*strings(key), *strings(item))]
    if isinstance(value, list | tuple):
        return [s for item in value for s in strings(item)]
    if isinstance(value, int | float | bool) or value is None:
        return []
    return [repr(value)]


def leaked(texts: list[str], needles: tuple[str, ...]) -> list[str]:
    """The needles found in ``texts``, as written or as a reader sees them."""
    seen = [*texts, *(INVISIBLE.sub("", text) for text in texts)]
    return [needle for needle in needles if any(needle in text for text in seen)]


@functools.cache
def logged(tmp: str) -> dict[str, list[str]]:
    """Every case and ordinary line emitted as ``tool:post`` through a real registry with
    hooks-logging mounted; the strings of each record read back from the file, by case id."""

    async def run() -> None:
        class Coordinator:
            def __init__(self) -> None:
                self.hooks = HookRegistry(json_data=False)
                self.session_id = "s-1"

        coordinator = Coordinator()
        cleanup = await mount(coordinator, {"path": str(Path(tmp) / "events.jsonl")})
        for number, (_, payload, _) in enumerate(CASES):
            await coordinator.hooks.emit("tool:post", {"case": f"c{number}", "result": payload})
        for number, (payload, _) in enumerate(OBJECTS):
            await coordinator.hooks.emit("tool:post", {"case": f"b{number}", "result": payload})
        for number, line in enumerate(ORDINARY):
            await coordinator.hooks.emit("tool:post", {"case": f"o{number}", "result": line})
        await cleanup()

    asyncio.run(run())
    found: dict[str, list[str]] = {}
    for line in (Path(tmp) / "events.jsonl").read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        data = record["data"]
        found[data["case"]] = strings(data)
    return found


@pytest.fixture(scope="module")
def log_records(tmp_path_factory: pytest.TempPathFactory) -> dict[str, list[str]]:
    return logged(str(tmp_path_factory.mktemp("spellings")))


@pytest.mark.parametrize(
    ("number", "family"),
    [(n, case[0]) for n, case in enumerate(CASES)],
    ids=[f"{case[0]}-{n}" for n, case in enumerate(CASES)],
)
def test_the_secret_reaches_neither_the_redacted_data_nor_the_log(
    number: int, family: str, log_records: dict[str, list[str]]
) -> None:
    _, payload, needles = CASES[number]
    redacted, counts = REDACTOR.redact(payload)
    assert counts, f"{family}: nothing redacted in {payload!r}"
    assert leaked(strings(redacted), needles) == [], f"{family}: {redacted!r}"
    record = log_records[f"c{number}"]
    assert leaked(record, needles) == [], f"{family}: logged as {record!r}"


@pytest.mark.parametrize("number", range(len(ORDINARY)), ids=lambda n: f"ordinary-{n}")
def test_an_ordinary_look_alike_is_left_as_it_is(
    number: int, log_records: dict[str, list[str]]
) -> None:
    line = ORDINARY[number]
    assert REDACTOR.redact_text(line) == (line, {})
    assert line in log_records[f"o{number}"]


@pytest.mark.parametrize("number", range(len(OBJECTS)), ids=lambda n: f"object-{n}")
def test_an_object_whose_text_holds_a_token_is_logged_without_it(
    number: int, log_records: dict[str, list[str]]
) -> None:
    _, needles = OBJECTS[number]
    record = log_records[f"b{number}"]
    assert leaked(record, needles) == [], f"logged as {record!r}"
    assert any("[REDACTED:" in text for text in record)
