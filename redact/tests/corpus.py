"""A corpus of fake secrets and of ordinary text, from a fixed seed, by family.

Secrets follow the issuers' documented formats (prefixes, lengths, alphabets) and are written
the way they leak: in shell lines, ``.env`` and YAML files, JSON, XML, INI, ``.netrc``, logs
and prose, often without any key name that would give them away. None is a real credential.
Ordinary text is what a coding session is full of and must come through untouched: code,
identifiers, hashes, UUIDs, versions, paths, timestamps, counts followed by words, base64 of
plain data, placeholders, stack traces.

``secrets()`` yields ``(family, text, secret)``: after redaction no part of ``secret`` of four
characters or more may remain. ``ordinary()`` yields ``(category, text)``.
``bench/redaction_corpus.py`` prints the figures; ``test_corpus.py`` holds them to a floor.
"""

from __future__ import annotations

import base64
import json
import random
import string
import uuid
from collections.abc import Callable, Iterator
from urllib.parse import quote

__all__ = ["ORDINARY_PER_CATEGORY", "SECRETS_PER_CATEGORY", "ordinary", "secrets"]

SECRETS_PER_CATEGORY = 12
ORDINARY_PER_CATEGORY = 160
LOWER = string.ascii_lowercase
UPPER = string.ascii_uppercase
DIGITS = string.digits
ALNUM = string.ascii_letters + string.digits
URLSAFE = ALNUM + "_-"
B64 = ALNUM + "+/"
HEX = "0123456789abcdef"
PUNCT = "!#%^*_~-@"
BECH32 = "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L"

Made = tuple[str, str]


def _pick(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def _random(rng: random.Random, alphabet: str, length: int) -> str:
    """A generated value as issuers make them: it holds a digit and both letter cases."""
    kinds = [k for k in (str.isdigit, str.islower, str.isupper) if any(map(k, alphabet))]
    if len(alphabet) < 26 or length < len(kinds):
        return _pick(rng, alphabet, length)
    while True:
        value = _pick(rng, alphabet, length)
        if all(any(map(k, value)) for k in kinds):
            return value


def _b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _password(rng: random.Random) -> str:
    return _random(rng, ALNUM + PUNCT, rng.randint(9, 22)) + rng.choice(DIGITS)


def _placed(rng: random.Random, token: str, env: str) -> Made:
    """``token`` in one of the places a token leaks: with or without a key name."""
    line = rng.choice(
        [
            "export {e}={t}",
            "{e}={t}",
            '{e}="{t}"',
            "  {k}: {t}",
            '{{"{k}": "{t}", "scope": "publish"}}',
            "<{k}>{t}</{k}>",
            "[default]\n{k} = {t}",
            "Using credentials {t} for the upload",
            "2026-03-14T09:26:53Z DEBUG client init with {t} (retry 2)",
            "here is the one you asked for: {t}",
            "curl -H 'Authorization: Bearer {t}' https://api.example.com/v1/me",
            "headers = {{'X-Api-Token': '{t}'}}",
            "args: ['--key', '{t}', '--verbose']",
            "  - {t}",
            "{t}",
        ]
    )
    return line.format(t=token, e=env, k=env.lower()), token


def _token_family(
    env: str, *makers: Callable[[random.Random], str]
) -> Callable[[random.Random], Made]:
    def make(rng: random.Random) -> Made:
        return _placed(rng, rng.choice(makers)(rng), env)

    return make


# ------------------------------------------------------------------------- vendor token shapes


def _github(rng: random.Random) -> str:
    if rng.random() < 0.2:
        return f"github_pat_{_random(rng, ALNUM, 22)}_{_random(rng, ALNUM, 59)}"
    return f"gh{rng.choice('pousr')}_{_random(rng, ALNUM, 36)}"


def _gitlab(rng: random.Random) -> str:
    prefix = rng.choice(["glpat-", "gldt-", "glrt-", "glft-", "glsoat-", "glcbt-", "GR1348941"])
    return prefix + _random(rng, ALNUM + "_-", 20)


def _stripe(rng: random.Random) -> str:
    if rng.random() < 0.25:
        return "whsec_" + _random(rng, ALNUM, 32)
    prefix = rng.choice(["sk_live_", "sk_test_", "rk_live_", "rk_test_"])
    return prefix + _random(rng, ALNUM, rng.choice([24, 34, 99]))


def _slack(rng: random.Random) -> str:
    kind = rng.choice("bpaors")
    return f"xox{kind}-{_pick(rng, DIGITS, 12)}-{_pick(rng, DIGITS, 13)}-{_random(rng, ALNUM, 24)}"


def _slack_webhook(rng: random.Random) -> str:
    return (
        f"https://hooks.slack.com/services/T{_pick(rng, UPPER + DIGITS, 8)}/"
        f"B{_pick(rng, UPPER + DIGITS, 10)}/{_random(rng, ALNUM, 24)}"
    )


def _jwt(rng: random.Random) -> str:
    header = _b64url(json.dumps({"alg": "HS256", "typ": "JWT"}).encode())
    payload = _b64url(
        json.dumps({"sub": str(rng.randint(10**6, 10**9)), "iat": rng.randint(10**9, 2 * 10**9)})
        .replace(" ", "")
        .encode()
    )
    return f"{header}.{payload}.{_b64url(rng.randbytes(32))}"


def _openai(rng: random.Random) -> str:
    return rng.choice(
        [
            lambda: "sk-proj-" + _random(rng, URLSAFE, 156),
            lambda: "sk-svcacct-" + _random(rng, URLSAFE, 120),
            lambda: "sk-" + _random(rng, ALNUM, 20) + "T3BlbkFJ" + _random(rng, ALNUM, 20),
        ]
    )()


def _anthropic(rng: random.Random) -> str:
    return f"sk-ant-{rng.choice(['api03', 'admin01'])}-{_random(rng, URLSAFE, 93)}AA"


def _twilio(rng: random.Random) -> str:
    return rng.choice(["SK", "AC"]) + _pick(rng, HEX, 32)


def _square(rng: random.Random) -> str:
    return rng.choice(
        [
            lambda: "sq0atp-" + _random(rng, URLSAFE, 22),
            lambda: "sq0csp-" + _random(rng, URLSAFE, 43),
            lambda: "EAAA" + _random(rng, URLSAFE, 60),
        ]
    )()


def _discord(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return (
            f"https://discord.com/api/webhooks/{rng.randint(10**17, 10**19 - 1)}/"
            f"{_random(rng, URLSAFE, 68)}"
        )
    user = base64.b64encode(str(rng.randint(10**17, 10**19 - 1)).encode()).decode().rstrip("=")
    return f"{user}.{_random(rng, URLSAFE, 6)}.{_random(rng, URLSAFE, 38)}"


def _grafana(rng: random.Random) -> str:
    if rng.random() < 0.5:
        blob = json.dumps({"o": str(rng.randint(1, 10**6)), "n": "ci", "k": _pick(rng, ALNUM, 24)})
        return "glc_" + base64.b64encode(blob.encode()).decode()
    return f"glsa_{_random(rng, ALNUM, 32)}_{_pick(rng, HEX, 8)}"


def _sentry(rng: random.Random) -> str:
    if rng.random() < 0.5:
        return "sntryu_" + _pick(rng, HEX, 64)
    blob = json.dumps({"iat": rng.randint(10**9, 2 * 10**9), "url": "https://sentry.io"})
    return f"sntrys_{_b64url(blob.encode())}_{_random(rng, ALNUM, 43)}"


def _vault(rng: random.Random) -> str:
    if rng.random() < 0.7:
        return "hvs." + _random(rng, URLSAFE, rng.choice([24, 90]))
    return "hvb." + _random(rng, URLSAFE, 138)


def _atlassian(rng: random.Random) -> str:
    return f"ATATT3xFfGF0{_random(rng, URLSAFE, 170)}={_pick(rng, HEX.upper(), 8)}"


def _doppler(rng: random.Random) -> str:
    return f"dp.{rng.choice(['pt', 'st', 'sa', 'ct'])}.{_random(rng, ALNUM, 43)}"


VENDORS: dict[str, Callable[[random.Random], Made]] = {
    "github": _token_family("GITHUB_TOKEN", _github),
    "gitlab": _token_family("GITLAB_TOKEN", _gitlab),
    "stripe": _token_family("STRIPE_KEY", _stripe),
    "slack": _token_family("SLACK_TOKEN", _slack, _slack_webhook),
    "google": _token_family("GOOGLE_KEY", lambda r: "AIza" + _random(r, URLSAFE, 35)),
    "jwt": _token_family("ID_TOKEN", _jwt),
    "openai": _token_family("OPENAI_KEY", _openai),
    "anthropic": _token_family("ANTHROPIC_KEY", _anthropic),
    "npm": _token_family("NPM_TOKEN", lambda r: "npm_" + _random(r, ALNUM, 36)),
    "hugging face": _token_family("HF_TOKEN", lambda r: "hf_" + _random(r, ALNUM[:52], 34)),
    "sendgrid": _token_family(
        "SENDGRID_KEY", lambda r: f"SG.{_random(r, URLSAFE, 22)}.{_random(r, URLSAFE, 43)}"
    ),
    "pypi": _token_family(
        "PYPI_TOKEN", lambda r: "pypi-AgEIcHlwaS5vcmc" + _random(r, URLSAFE, r.randint(60, 160))
    ),
    "digitalocean": _token_family(
        "DO_TOKEN", lambda r: f"do{r.choice('por')}_v1_{_pick(r, HEX, 64)}"
    ),
    "shopify": _token_family(
        "SHOPIFY_TOKEN", lambda r: f"shp{r.choice(['at', 'ss', 'ca', 'pa'])}_{_pick(r, HEX, 32)}"
    ),
    "twilio": _token_family("TWILIO_SID", _twilio),
    "mailgun": _token_family("MAILGUN_KEY", lambda r: "key-" + _pick(r, HEX, 32)),
    "mailchimp": _token_family(
        "MAILCHIMP_KEY", lambda r: f"{_pick(r, HEX, 32)}-us{r.randint(1, 21)}"
    ),
    "square": _token_family("SQUARE_TOKEN", _square),
    "discord": _token_family("DISCORD_TOKEN", _discord),
    "linear": _token_family("LINEAR_KEY", lambda r: "lin_api_" + _random(r, ALNUM, 40)),
    "doppler": _token_family("DOPPLER_TOKEN", _doppler),
    "atlassian": _token_family("JIRA_TOKEN", _atlassian),
    "databricks": _token_family("DATABRICKS_TOKEN", lambda r: "dapi" + _pick(r, HEX, 32)),
    "grafana": _token_family("GRAFANA_TOKEN", _grafana),
    "pulumi": _token_family("PULUMI_TOKEN", lambda r: "pul-" + _pick(r, HEX, 40)),
    "postman": _token_family(
        "POSTMAN_KEY", lambda r: f"PMAK-{_pick(r, HEX, 24)}-{_pick(r, HEX, 34)}"
    ),
    "sentry": _token_family("SENTRY_TOKEN", _sentry),
    "vault": _token_family("VAULT_TOKEN", _vault),
    "age": _token_family("AGE_KEY", lambda r: "AGE-SECRET-KEY-1" + _pick(r, BECH32, 58)),
    "airtable": _token_family(
        "AIRTABLE_TOKEN", lambda r: f"pat{_random(r, ALNUM, 14)}.{_pick(r, HEX, 64)}"
    ),
}


# ------------------------------------------------------------------------ other secret families


def _telegram(rng: random.Random) -> Made:
    token = f"{rng.randint(10**7, 10**10 - 1)}:AA{_random(rng, URLSAFE, 33)}"
    line = rng.choice(
        [
            "BOT_URL=https://api.telegram.org/bot{t}/sendMessage",
            "bot = Bot('{t}')",
            "telegram:\n  token: {t}",
            "the bot answers with {t} now",
        ]
    )
    return line.format(t=token), token


def _azure(rng: random.Random) -> Made:
    if rng.random() < 0.7:
        key = _random(rng, B64, 86) + "=="
        text = (
            f"DefaultEndpointsProtocol=https;AccountName=store{rng.randint(1, 99)};"
            f"AccountKey={key};EndpointSuffix=core.windows.net"
        )
    else:
        key = _random(rng, B64, 43) + "="
        text = (
            f"Endpoint=sb://bus{rng.randint(1, 99)}.servicebus.windows.net/;"
            f"SharedAccessKeyName=RootManageSharedAccessKey;SharedAccessKey={key}"
        )
    return rng.choice(["{c}", '"ConnectionString": "{c}"', "AZURE_STORAGE={c}"]).format(c=text), key


def _aws(rng: random.Random) -> Made:
    key_id = "AKIA" + _pick(rng, UPPER + DIGITS, 16)
    secret = _random(rng, B64, 40)
    if rng.random() < 0.3:
        return rng.choice([f"aws_access_key_id = {key_id}", f"using {key_id} now"]), key_id
    line = rng.choice(
        [
            "aws_secret_access_key = {s}",
            'AWS_SECRET_ACCESS_KEY="{s}"',
            '"SecretAccessKey": "{s}"',
            "{i} {s}",
            "{i},{s}",
            "key: {i}\nsecret: {s}",
            "{i}\t{s}",
            "AccessKeyId {i} SecretKey {s}",
        ]
    )
    return line.format(i=key_id, s=secret), secret


def _private_key(rng: random.Random) -> Made:
    lines = [_pick(rng, B64, 64) for _ in range(rng.randint(3, 8))]
    body = "\n".join(lines)
    label = rng.choice(
        [
            *("RSA PRIVATE KEY", "EC PRIVATE KEY", "PRIVATE KEY", "OPENSSH PRIVATE KEY"),
            *("ENCRYPTED PRIVATE KEY", "DSA PRIVATE KEY", "PGP PRIVATE KEY BLOCK"),
        ]
    )
    kind = rng.randrange(4)
    if kind == 0:  # as JSON (a service account file): \n escapes
        escaped = body.replace("\n", "\\n")
        block = f"-----BEGIN {label}-----\\n{escaped}\\n-----END {label}-----\\n"
        return f'{{"type": "service_account", "private_key": "{block}"}}', body.replace("\n", "\\n")
    if kind == 1:  # PuTTY
        mac = _pick(rng, HEX, 40)
        text = (
            "PuTTY-User-Key-File-2: ssh-rsa\nEncryption: none\nComment: rsa-key-20260101\n"
            f"Public-Lines: 2\n{_pick(rng, B64, 64)}\n{_pick(rng, B64, 20)}\n"
            f"Private-Lines: {len(lines)}\n{body}\nPrivate-MAC: {mac}\n"
        )
        return text, body + "\n" + mac
    if kind == 2:  # cut off, as in a truncated tool output
        return f"$ cat id_rsa\n-----BEGIN {label}-----\n{body}\n[output truncated]", body
    return f"-----BEGIN {label}-----\n{body}\n-----END {label}-----", body


def _cli(rng: random.Random) -> Made:
    value = _random(rng, ALNUM + "!#%^*_~", rng.randint(9, 20)) + rng.choice(DIGITS)
    line = rng.choice(
        [
            "mysql -h db -u root -p{v} shop",
            "mysql --user=root --password={v} shop",
            "mysqldump -uroot -p'{v}' app > app.sql",
            "psql --password {v} -h db app",
            "PGPASSWORD={v} psql -h db -U app",
            "curl -u admin:{v} https://ci.example.com/job",
            "curl --user 'deploy:{v}' https://nexus.example.com",
            "sshpass -p '{v}' ssh deploy@10.0.0.4",
            "sshpass -p {v} scp build.tgz deploy@host:/srv",
            "docker login -u bot -p {v} registry.example.com",
            "docker login --username bot --password {v} ghcr.io",
            "redis-cli -h cache -a {v} ping",
            "mongo --host db -u admin -p {v} --authenticationDatabase admin",
            "mongosh 'mongodb://db:27017' -u root -p '{v}'",
            "htpasswd -b -c .htpasswd admin {v}",
            "htpasswd -bc /etc/nginx/.htpasswd admin {v}",
            "openssl pkcs12 -export -in c.pem -out c.p12 -passout pass:{v}",
            "openssl enc -aes-256-cbc -in a -out a.enc -pass pass:{v}",
        ]
    )
    return rng.choice(["$ ", "", "+ ", "RUN "]) + line.format(v=value), value


def _netrc(rng: random.Random) -> Made:
    value = _password(rng)
    if rng.random() < 0.5:
        return f"machine api.example.com\n  login deploy\n  password {value}\n", value
    return f"machine git.example.com login ci password {value}", value


def _xml(rng: random.Random) -> Made:
    value = _password(rng)
    tag = rng.choice(
        ["password", "apiKey", "secret", "clientSecret", "token", "passwd", "accessKey", "api-key"]
    )
    return f"<server>\n  <id>deploy</id>\n  <{tag}>{value}</{tag}>\n</server>", value


def _config_keys(rng: random.Random) -> Made:
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
            "api-key: {v}",
            "ApiKey={v}",
            "MYSQL_ROOT_PASSWORD={v}",
            "spring.datasource.password={v}",
            "  access_token: '{v}'",
            "REDIS_PASSWORD: {v}",
            "SECRET_KEY = '{v}'",
        ]
    )
    return line.format(v=value), value


def _base64(rng: random.Random) -> Made:
    user = _pick(rng, LOWER, rng.randint(3, 9))
    encoded = base64.b64encode(f"{user}:{_password(rng)}".encode()).decode()
    line = rng.choice(
        [
            '{{"auths": {{"ghcr.io": {{"auth": "{c}"}}}}}}',
            "Authorization: Basic {c}",
            "curl -H 'Authorization: Basic {c}' https://x.example.com",
            '{{"auths": {{"https://index.docker.io/v1/": {{"auth": "{c}", "email": ""}}}}}}',
        ]
    )
    return line.format(c=encoded), encoded


def _url_encoded(rng: random.Random) -> Made:
    raw = _password(rng) + rng.choice(["@", "/", ":", "#", "?"])
    encoded = quote(raw, safe="")
    scheme = rng.choice(["postgres", "mysql", "https", "redis", "amqp"])
    return f"DATABASE_URL={scheme}://app:{encoded}@db.internal:5432/app", encoded


def _continued(rng: random.Random) -> Made:
    first, second = _random(rng, ALNUM, 10), _random(rng, ALNUM, 10)
    kind = rng.randrange(3)
    if kind == 0:  # a .properties value continued on the next line
        return f"db.password={first}\\\n    {second}\n", f"{first} {second}"
    if kind == 1:  # a command continued on the next lines
        value = first + second
        return f"docker login -u bot \\\n  -p {value} \\\n  registry.example.com", value
    return f"export API_TOKEN={first}\\\n{second}", f"{first} {second}"


def _escaped(rng: random.Random) -> Made:
    value = _pick(rng, ALNUM, 6) + '\\"' + _pick(rng, ALNUM, 3) + "\\\\" + _pick(rng, ALNUM, 4)
    value = value + rng.choice(DIGITS)
    line = rng.choice(['password = "{v}"', '{{"password": "{v}"}}', 'secret: "{v}"'])
    return line.format(v=value), value


def _ampersand(rng: random.Random) -> Made:
    value = _pick(rng, ALNUM, 8) + "&" + rng.choice(DIGITS) + _pick(rng, ALNUM, 2)
    return rng.choice(["PASSWORD={v}", "password: {v}", "pwd={v}"]).format(v=value), value


def _prose(rng: random.Random) -> Made:
    value = _password(rng)
    line = rng.choice(
        [
            "The password is {v} until Friday.",
            "Use password: {v} for the staging box",
            "fyi the admin passphrase was {v}",
            "pw = {v}",
            "login with admin / password {v} and change it",
            "My password for the VPN is {v}, don't share it.",
        ]
    )
    return line.format(v=value), value


SECRET_CATEGORIES: dict[str, Callable[[random.Random], Made]] = {
    **VENDORS,
    "telegram": _telegram,
    "azure connection strings": _azure,
    "aws": _aws,
    "private keys": _private_key,
    "command-line passwords": _cli,
    ".netrc": _netrc,
    "xml": _xml,
    "yaml/ini/json/env keys": _config_keys,
    "base64 credentials": _base64,
    "url-encoded credentials": _url_encoded,
    "continued lines": _continued,
    "escaped quotes": _escaped,
    "ampersand values": _ampersand,
    "prose": _prose,
}


def secrets(per_category: int = SECRETS_PER_CATEGORY) -> Iterator[tuple[str, str, str]]:
    """``(family, text, secret)`` for every fake secret of the corpus."""
    for category, make in SECRET_CATEGORIES.items():
        rng = random.Random(f"corpus-secret-{category}")
        count = per_category if category in VENDORS else per_category * 2
        for _ in range(count):
            text, secret = make(rng)
            yield category, text, secret


# ------------------------------------------------------------------------------ ordinary text

WORDS = [
    "user", "token", "count", "parse", "request", "session", "key", "cache", "value", "secret",
    "password", "auth", "config", "handler", "max", "retry", "client", "api", "path", "hash",
]  # fmt: skip


def _identifiers(rng: random.Random) -> str:
    name = "_".join(rng.sample(WORDS, rng.randint(2, 4)))
    camel = rng.choice(WORDS) + "".join(w.title() for w in rng.sample(WORDS, 2))
    return rng.choice(
        [
            f"def {name}(self, {rng.choice(WORDS)}: str) -> None:",
            f"{name} = {rng.choice(WORDS)}_{rng.choice(WORDS)}",
            f"self.{name}.append({rng.choice(WORDS)})",
            f"max_{rng.choice(WORDS)}_tokens: {rng.randint(1, 9999)}",
            f"token_type: {rng.choice(['bearer', 'refresh', 'access'])}",
            f"password = getpass.getpass('{rng.choice(WORDS).title()}: ')",
            f"const {camel} = await get{camel.title()}(req.params.{rng.choice(WORDS)});",
            f"if (!{camel}) throw new Error('missing {name}');",
            f"api_key = os.environ['{name.upper()}']",
            f"password: str = Field(..., min_length={rng.randint(8, 16)})",
            f"token = self.{name}",
            f"secret_key = settings.{name.upper()}",
            f"{name.upper()}_PATH=/var/lib/{rng.choice(WORDS)}",
            f"fn {name}(&self) -> Result<{camel.title()}, Error> {{",
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
            f"{_pick(rng, HEX, 7)} fix: handle empty {rng.choice(WORDS)} list",
            f"md5 {_pick(rng, HEX, 32)}  dist/app-{rng.randint(1, 9)}.tar.gz",
            f"image: ghcr.io/org/app@sha256:{_pick(rng, HEX, 64)}",
            f'"checksum": "{_pick(rng, HEX, 40)}",',
            f"HEAD is now at {_pick(rng, HEX, 12)} Bump version",
        ]
    )


def _ids(rng: random.Random) -> str:
    some = uuid.UUID(int=rng.getrandbits(128))
    return rng.choice(
        [
            f"request_id={some}",
            f"run {some} finished",
            f"trace-id: {_pick(rng, HEX, 32)}",
            f'{{"session_id": "{some}", "turn": {rng.randint(1, 99)}}}',
            f"arn:aws:iam::{rng.randint(10**11, 10**12 - 1)}:role/deploy-{rng.randint(1, 9)}",
            f"i-{_pick(rng, HEX, 17)} running t3.{rng.choice(['micro', 'large'])}",
            f"pod/api-{_pick(rng, HEX, 10)}-{_pick(rng, LOWER + DIGITS, 5)} 1/1 Running",
            f"msg_{_random(rng, ALNUM, 24)} created",
            f"ULID {_pick(rng, '0123456789ABCDEFGHJKMNPQRSTVWXYZ', 26)}",
        ]
    )


def _versions_paths(rng: random.Random) -> str:
    major, minor, patch = rng.randint(0, 30), rng.randint(0, 99), rng.randint(0, 999)
    return rng.choice(
        [
            f"pydantic=={rng.randint(1, 2)}.{rng.randint(0, 12)}.{rng.randint(0, 9)}",
            f"/usr/lib/python3.{rng.randint(8, 13)}/site-packages/foo/bar_{rng.randint(1, 99)}.py",
            f"src/app/{_pick(rng, LOWER, 6)}/handlers.py:{rng.randint(1, 999)}",
            f"https://github.com/org/repo/blob/main/src/{_pick(rng, LOWER, 5)}.ts",
            f"v{major}.{minor}.{patch}-rc.{rng.randint(1, 9)}+build.{rng.randint(100, 999)}",
            f"Windows 10.0.{rng.randint(10000, 22631)}.{rng.randint(1000, 4000)}",
            f"node_modules/@types/{_pick(rng, LOWER, 5)}/index.d.ts",
            f"C:\\Users\\dev\\AppData\\Local\\{_pick(rng, LOWER, 6)}\\cache",
            f'  File "/srv/app/{_pick(rng, LOWER, 5)}.py", line {rng.randint(1, 999)}, in main',
            f"https://docs.example.com/v{major}/guide/api-keys#rotate-{rng.choice(WORDS)}",
        ]
    )


def _logs(rng: random.Random) -> str:
    a, b, c = rng.randint(100, 999), rng.randint(100, 999), rng.randint(1000, 9999)
    return rng.choice(
        [
            f"2026-11-{rng.randint(10, 28)}T{rng.randint(10, 23)}:{rng.randint(10, 59)}:00Z "
            f"INFO done in {rng.randint(1, 999)} ms",
            f"{a} {b} {c} tests passed",
            f"{a} {b} {c} files changed",
            f"{rng.randint(1, 9999)} passed, {rng.randint(0, 99)} skipped in {rng.random():.2f}s",
            f"epoch {rng.randint(1_600_000_000_000, 1_800_000_000_000)} processed",
            f"port {rng.randint(1024, 65535)} pid {rng.randint(100, 99999)}",
            f"{a}-{b}-{c} items",
            f"10.{rng.randint(0, 255)}.{rng.randint(0, 255)}.{rng.randint(0, 255)} - - "
            f'"GET /api/v1/{rng.choice(WORDS)} HTTP/1.1" 200 {rng.randint(100, 99999)}',
            f"took {a} {b} {c} ns over {rng.randint(2, 9)} runs",
            f"Downloaded {rng.randint(1, 999)}.{rng.randint(0, 9)} MB in {rng.randint(1, 60)}s",
        ]
    )


def _plain_base64(rng: random.Random) -> str:
    data = rng.choice(
        [b"hello world", b"just some text", b'{"a": 1}', rng.randbytes(24), b"name=value"]
    )
    text = base64.b64encode(data).decode()
    return rng.choice(
        [
            f"data:image/png;base64,{base64.b64encode(rng.randbytes(30)).decode()}",
            f"payload = '{text}'",
            f"content: {text}",
            f'"body": "{text}"',
            f"echo {text} | base64 -d",
            f"expected = b64decode(b'{text}')",
        ]
    )


def _placeholders(rng: random.Random) -> str:
    key = rng.choice(["password", "api_key", "token", "secret", "client_secret", "DB_PASSWORD"])
    return rng.choice(
        [
            f"{key}: ${{{key.upper()}}}",
            f'{key} = "<your-{rng.choice(WORDS)}>"',
            f"{key}=****",
            f'"{key}": null',
            f"{key}: {{{{ vault.{rng.choice(WORDS)} }}}}",
            f"export {key.upper()}=$(cat /run/secrets/{rng.choice(WORDS)})",
            f"{key} = os.getenv('{key.upper()}')",
            f'{key}: "[REDACTED:{rng.choice(["credential_assignment", "email"])}]"',
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
            "Use the key-value store for the session tokens.",
            "The password is stored hashed with bcrypt.",
            "Pass the --password flag to be prompted for it.",
            "Run mysql -p to be asked for the password.",
            "See https://example.com/docs/auth for how tokens expire.",
            f"We have {rng.randint(2, 999)} open issues and {rng.randint(2, 99)} pull requests.",
            "The API key lives in the vault, not in the repository.",
        ]
    )


def _code(rng: random.Random) -> str:
    return rng.choice(
        [
            "curl -sSL https://sh.rustup.rs | sh -s -- -y",
            f"docker run -p {rng.randint(1000, 9999)}:80 -e MODE=dev nginx:1.{rng.randint(20, 27)}",
            f"ssh -p {rng.randint(1000, 9999)} deploy@build.example.com",
            f"git log --oneline -n {rng.randint(1, 50)} -- src/",
            f"mkdir -p build/{rng.choice(WORDS)} && cd build",
            "mysql -u root -p",
            "redis-cli -h cache ping",
            f"pytest -q -k {rng.choice(WORDS)} --maxfail={rng.randint(1, 5)}",
            "openssl req -new -key server.key -out server.csr",
            f"kubectl get secret {rng.choice(WORDS)}-tls -o yaml",
            "pip install -U 'amplifier-core>=2.0'",
            f"npm install --save-dev @types/node@{rng.randint(16, 22)}",
            f"SELECT id, password_hash FROM users WHERE id = {rng.randint(1, 9999)};",
            "for key, value in sorted(items.items()):",
        ]
    )


ORDINARY_CATEGORIES: dict[str, Callable[[random.Random], str]] = {
    "identifiers": _identifiers,
    "hashes": _hashes,
    "ids": _ids,
    "versions and paths": _versions_paths,
    "logs and counts": _logs,
    "plain base64": _plain_base64,
    "placeholders": _placeholders,
    "prose": _prose_plain,
    "commands and code": _code,
}


def ordinary(per_category: int = ORDINARY_PER_CATEGORY) -> Iterator[tuple[str, str]]:
    """``(category, text)`` for every ordinary line of the corpus."""
    for category, make in ORDINARY_CATEGORIES.items():
        rng = random.Random(f"corpus-ordinary-{category}")
        for _ in range(per_category):
            yield category, make(rng)
