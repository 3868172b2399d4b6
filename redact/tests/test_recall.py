"""Recall: every rule finds every generated, format-valid secret in every context.

The values are random but follow each issuer's published format (prefixes, lengths, alphabets,
check digits); none is a real credential. Each sample is embedded in several contexts (prose,
quotes, JSON, brackets, end of sentence) and must be gone from the output, reported under its
own rule name.
"""

from __future__ import annotations

import base64
import json
import random
import re
import string
from collections.abc import Callable, Iterator

import pytest

from amplifier_hooks_redact import BUILTIN_RULES, RedactionConfig, build_redactor

SAMPLES_PER_RULE = 60
ALNUM = string.ascii_letters + string.digits
UPPER_ALNUM = string.ascii_uppercase + string.digits
HEX = "0123456789abcdef"


def pick(rng: random.Random, alphabet: str, length: int) -> str:
    return "".join(rng.choice(alphabet) for _ in range(length))


def b64url(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def luhn_complete(body: str) -> str:
    """``body`` plus the check digit that makes it Luhn-valid (written here, not imported)."""
    total = 0
    for position, char in enumerate(reversed(body)):
        value = int(char)
        if position % 2 == 0:  # these get doubled once the check digit is appended
            value *= 2
            value -= 9 if value > 9 else 0
        total += value
    return body + str((10 - total % 10) % 10)


# ------------------------------------------------------------------------ generators per rule
# Each returns (text to scan, the secret part that must disappear).


def gen_private_key(rng: random.Random) -> tuple[str, str]:
    label = rng.choice(
        [
            "RSA PRIVATE KEY",
            "EC PRIVATE KEY",
            "PRIVATE KEY",
            "OPENSSH PRIVATE KEY",
            "ENCRYPTED PRIVATE KEY",
            "DSA PRIVATE KEY",
            "PGP PRIVATE KEY BLOCK",
        ]
    )
    body = base64.b64encode(rng.randbytes(rng.randint(200, 900))).decode()
    lines = "\n".join(body[i : i + 64] for i in range(0, len(body), 64))
    block = f"-----BEGIN {label}-----\n{lines}\n-----END {label}-----"
    if rng.random() < 0.3:  # as it appears inside JSON (a service-account file)
        block = block.replace("\n", "\\n")
    return block, block


def gen_jwt(rng: random.Random) -> tuple[str, str]:
    header = {"alg": rng.choice(["HS256", "RS256", "ES256"]), "typ": "JWT"}
    payload = {"sub": pick(rng, ALNUM, 12), "iat": rng.randint(1_500_000_000, 1_900_000_000)}
    token = ".".join(
        [
            b64url(json.dumps(header).encode()),
            b64url(json.dumps(payload).encode()),
            b64url(rng.randbytes(rng.choice([32, 64, 256]))),
        ]
    )
    return token, token


def gen_aws_access_key_id(rng: random.Random) -> tuple[str, str]:
    key = rng.choice(["AKIA", "ASIA", "ABIA", "ACCA"]) + pick(rng, UPPER_ALNUM, 16)
    return key, key


def gen_aws_secret_access_key(rng: random.Random) -> tuple[str, str]:
    secret = pick(rng, ALNUM + "/+", 40)
    template = rng.choice(
        [
            "aws_secret_access_key = {s}",
            "AWS_SECRET_ACCESS_KEY={s}",
            'export AWS_SECRET_ACCESS_KEY="{s}"',
            '"SecretAccessKey": "{s}",',
            "aws_secret_key: '{s}'",
        ]
    )
    return template.format(s=secret), secret


def gen_github_token(rng: random.Random) -> tuple[str, str]:
    if rng.random() < 0.3:
        token = f"github_pat_{pick(rng, ALNUM, 22)}_{pick(rng, ALNUM, 59)}"
    else:
        token = rng.choice(["ghp_", "gho_", "ghu_", "ghs_", "ghr_"]) + pick(rng, ALNUM, 36)
    return token, token


def gen_gitlab_token(rng: random.Random) -> tuple[str, str]:
    token = "glpat-" + pick(rng, ALNUM + "_-", 20)
    return token, token


def gen_slack_token(rng: random.Random) -> tuple[str, str]:
    kind = rng.randrange(3)
    digits = string.digits
    if kind == 0:
        token = f"xoxb-{pick(rng, digits, 12)}-{pick(rng, digits, 13)}-{pick(rng, ALNUM, 24)}"
    elif kind == 1:
        token = (
            f"xoxp-{pick(rng, digits, 12)}-{pick(rng, digits, 12)}-"
            f"{pick(rng, digits, 13)}-{pick(rng, HEX, 32)}"
        )
    else:
        token = f"xapp-1-A{pick(rng, UPPER_ALNUM, 10)}-{pick(rng, digits, 13)}-{pick(rng, HEX, 64)}"
    return token, token


def gen_slack_webhook(rng: random.Random) -> tuple[str, str]:
    url = (
        f"https://hooks.slack.com/services/T{pick(rng, UPPER_ALNUM, 10)}/"
        f"B{pick(rng, UPPER_ALNUM, 10)}/{pick(rng, ALNUM, 24)}"
    )
    return url, url


def gen_google_api_key(rng: random.Random) -> tuple[str, str]:
    key = "AIza" + pick(rng, ALNUM + "_-", 35)
    return key, key


def gen_stripe_key(rng: random.Random) -> tuple[str, str]:
    if rng.random() < 0.2:
        key = "whsec_" + pick(rng, ALNUM, 32)
    else:
        key = rng.choice(["sk_live_", "sk_test_", "rk_live_", "rk_test_"]) + pick(
            rng, ALNUM, rng.choice([24, 99])
        )
    return key, key


def gen_anthropic_api_key(rng: random.Random) -> tuple[str, str]:
    key = f"sk-ant-{rng.choice(['api03', 'admin01'])}-{pick(rng, ALNUM + '_-', 93)}AA"
    return key, key


def gen_openai_api_key(rng: random.Random) -> tuple[str, str]:
    kind = rng.randrange(3)
    if kind == 0:
        key = f"sk-{pick(rng, ALNUM, 20)}T3BlbkFJ{pick(rng, ALNUM, 20)}"
    elif kind == 1:
        key = f"sk-proj-{pick(rng, ALNUM + '_-', 156)}"
    else:
        key = f"sk-svcacct-{pick(rng, ALNUM + '_-', 120)}"
    return key, key


def gen_url_credentials(rng: random.Random) -> tuple[str, str]:
    password = pick(rng, ALNUM + "!$&'()*+,;=%-._~"[:10], rng.randint(8, 24)).replace("'", "x")
    scheme = rng.choice(
        ["postgres", "postgresql", "mysql", "redis", "amqp", "https", "mongodb+srv"]
    )
    user = pick(rng, string.ascii_lowercase, 6)
    host = rng.choice(["db.internal", "10.0.0.12", "cache.example.com"])
    pair = f"{user}:{password}"  # the user name is half of the credential: taken with it
    return f"{scheme}://{pair}@{host}:{rng.randint(1000, 9999)}/app", pair


def gen_auth_header(rng: random.Random) -> tuple[str, str]:
    if rng.random() < 0.5:
        token = pick(rng, ALNUM + "-._~+/", rng.randint(24, 64)) + pick(rng, ALNUM, 4)
        return f"Authorization: Bearer {token}", token
    credentials = base64.b64encode(
        f"{pick(rng, ALNUM, 8)}:{pick(rng, ALNUM, 16)}".encode()
    ).decode()
    return f"authorization: Basic {credentials}", credentials


ASSIGNMENT_KEYS = [
    "password",
    "PASSWORD",
    "db_password",
    "MYSQL_ROOT_PASSWORD",
    "passwd",
    "passphrase",
    "secret",
    "client_secret",
    "SECRET_KEY",
    "api_key",
    "apiKey",
    "API-KEY",
    "x-api-key",
    "access_token",
    "auth_token",
    "refreshToken",
    "token",
    "private_key",
    "encryption_key",
]


def gen_credential_assignment(rng: random.Random) -> tuple[str, str]:
    key = rng.choice(ASSIGNMENT_KEYS)
    # A password-like value: letters with at least one digit, some punctuation.
    value = pick(rng, ALNUM + "!#%^*-_.~", rng.randint(8, 30)) + rng.choice(string.digits)
    template = rng.choice(
        [
            "{k}={v}",
            "{k} = '{v}'",
            '{k}: "{v}"',
            '"{k}": "{v}"',
            "{k}: {v}",
            "--{k}={v}",
            "https://api.example.com/v1?{k}={v}&page=2",
            "{k} => '{v}'",
            "export {k}={v}",
            '{{\\"{k}\\": \\"{v}\\"}}',
        ]
    )
    return template.format(k=key, v=value), value


def gen_vendor_token(rng: random.Random) -> tuple[str, str]:
    lower_hex = "0123456789abcdef"
    token = rng.choice(
        [
            lambda: "npm_" + pick(rng, ALNUM, 36),
            lambda: "hf_" + pick(rng, string.ascii_letters, 34),
            lambda: "SG." + pick(rng, ALNUM + "_-", 22) + "." + pick(rng, ALNUM + "_-", 43),
            lambda: "pypi-AgEIcHlwaS5vcmc" + pick(rng, ALNUM + "_-", 60),
            lambda: rng.choice(["dop", "doo", "dor"]) + "_v1_" + pick(rng, lower_hex, 64),
            lambda: rng.choice(["shpat", "shpss", "shpca", "shppa"]) + "_" + pick(rng, HEX, 32),
            lambda: (
                rng.choice(["gldt", "glrt", "glft", "glsoat", "glcbt"])
                + "-"
                + pick(rng, ALNUM, 20)
                + rng.choice(string.digits)
            ),
            lambda: "glptt-" + pick(rng, lower_hex, 39) + rng.choice(string.digits),
            lambda: "glimt-" + pick(rng, ALNUM, 24) + rng.choice(string.digits),
            lambda: "gloas-" + pick(rng, ALNUM + "_-", 63) + rng.choice(string.digits),
            lambda: "SK" + pick(rng, lower_hex, 31) + rng.choice(string.digits),
            lambda: "key-" + pick(rng, ALNUM, 31) + rng.choice(string.digits),
            lambda: "lin_api_" + pick(rng, ALNUM, 39) + rng.choice(string.digits),
            lambda: "dp.pt." + pick(rng, ALNUM, 42) + rng.choice(string.digits),
            lambda: "dapi" + pick(rng, lower_hex, 31) + rng.choice(string.digits),
            lambda: "glsa_" + pick(rng, ALNUM, 31) + "7_" + pick(rng, lower_hex, 8),
            lambda: "pul-" + pick(rng, lower_hex, 39) + rng.choice(string.digits),
            lambda: "PMAK-" + pick(rng, lower_hex, 24) + "-" + pick(rng, lower_hex, 34),
            lambda: "hvs." + pick(rng, ALNUM, 23) + rng.choice(string.digits),
            lambda: "AGE-SECRET-KEY-1" + pick(rng, "QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L", 58),
            lambda: "sq0csp-" + pick(rng, ALNUM, 42) + rng.choice(string.digits),
            lambda: (
                "https://discord.com/api/webhooks/"
                + pick(rng, string.digits, 18)
                + "/"
                + pick(rng, ALNUM + "_-", 67)
                + rng.choice(string.digits)
            ),
        ]
    )()
    return token, token


def gen_telegram_bot_token(rng: random.Random) -> tuple[str, str]:
    token = (
        str(rng.randint(10**8, 10**10 - 1))
        + ":AA"
        + pick(rng, ALNUM + "_-", 32)
        + rng.choice("0123")
    )
    return token, token


def gen_shaped_token(rng: random.Random) -> tuple[str, str]:
    """A token of a made-up vendor: a lower-case prefix, a separator, a random body."""
    separator = rng.choice("_-")
    head = pick(rng, "bdfhjkmqvwz", rng.randint(3, 6)) + separator
    if rng.random() < 0.3:
        head += pick(rng, "bdfhjkmqvwz0123", rng.randint(2, 4)) + separator
    body = list(pick(rng, ALNUM, rng.randint(29, 61)) + rng.choice("ABCXYZ"))
    body += [rng.choice("abcxyz"), rng.choice("0123456789")]
    rng.shuffle(body)
    token = head + "".join(body)
    return token, token


def gen_mailchimp_api_key(rng: random.Random) -> tuple[str, str]:
    key = pick(rng, HEX, 32) + "-us" + str(rng.randint(1, 21))
    return key, key


def gen_cli_password(rng: random.Random) -> tuple[str, str]:
    value = pick(rng, ALNUM + "!#%^*_~", rng.randint(8, 24)) + rng.choice(string.digits)
    template = rng.choice(
        [
            "mysql -u root -p{v} app",
            "mysqldump -h db -uadmin -p{v} shop > shop.sql",
            "psql --password {v} -h db",
            "curl -u deploy:{v} https://ci.example.com/api",
            "curl --user admin:{v} -X POST https://x.example.org",
            "sshpass -p {v} ssh deploy@host",
            "docker login -u bot -p {v} registry.example.com",
            "docker login --username bot --password {v} ghcr.io",
            "redis-cli -h cache -a {v} ping",
            "mongosh mongodb://db/app -u admin -p {v}",
            "openssl pkcs12 -export -in c.pem -passout pass:{v} -out c.p12",
            "htpasswd -b -c .htpasswd alice {v}",
        ]
    )
    pair = re.search(r"(?:-u|--user) (\w+:)\{v\}", template)
    if pair is not None:  # user:password given to -u / --user is taken whole
        return template.format(v=value), pair.group(1) + value
    return template.format(v=value), value


def gen_netrc_password(rng: random.Random) -> tuple[str, str]:
    value = pick(rng, ALNUM + "!#%^*_~", rng.randint(8, 24)) + rng.choice(string.digits)
    template = rng.choice(
        [
            "machine api.example.com login bot password {v}",
            "machine git.example.org\n  login deploy\n  password {v}",
            "default login anonymous password {v}",
        ]
    )
    return template.format(v=value), value


def gen_xml_secret(rng: random.Random) -> tuple[str, str]:
    value = pick(rng, ALNUM + "!#%^*_~", rng.randint(8, 24)) + rng.choice(string.digits)
    tag = rng.choice(
        [
            "password",
            "Password",
            "secret",
            "apiKey",
            "api-key",
            "clientSecret",
            "accessToken",
            "db:password",
            "token",
        ]
    )
    return f"<{tag}>{value}</{tag}>", value


def gen_aws_key_pair(rng: random.Random) -> tuple[str, str]:
    key_id = "AKIA" + pick(rng, UPPER_ALNUM, 16)
    secret = pick(rng, ALNUM + "/+", 38) + rng.choice("aA") + rng.choice(string.digits)
    template = rng.choice(
        [
            "{i} {s}",
            "{i},{s}",
            "id {i} secret {s}",
            "{i}\n{s}",
            "AccessKeyId: {i} / {s}",
        ]
    )
    return template.format(i=key_id, s=secret), secret


def gen_docker_auth(rng: random.Random) -> tuple[str, str]:
    user = pick(rng, string.ascii_lowercase, rng.randint(3, 10))
    password = pick(rng, ALNUM, rng.randint(8, 20)) + rng.choice(string.digits)
    credentials = base64.b64encode(f"{user}:{password}".encode()).decode()
    template = rng.choice(
        [
            '{{"auths": {{"registry.example.com": {{"auth": "{c}"}}}}}}',
            '"auth": "{c}"',
            "auth: {c}",
        ]
    )
    return template.format(c=credentials), credentials


def gen_prose_password(rng: random.Random) -> tuple[str, str]:
    value = pick(rng, ALNUM + "!#%^*_~", rng.randint(8, 20)) + rng.choice(string.digits)
    template = rng.choice(
        [
            "the password is {v} for now",
            "Your new password is {v} and it expires",
            "the wifi passphrase was {v} yesterday",
            "Passcode is {v} ok",
        ]
    )
    return template.format(v=value), value


def gen_email(rng: random.Random) -> tuple[str, str]:
    local = pick(rng, string.ascii_lowercase, rng.randint(1, 10))
    local += rng.choice(["", ".", "_", "+", "-"]) + pick(rng, ALNUM, rng.randint(1, 8))
    labels = [pick(rng, string.ascii_lowercase + string.digits, rng.randint(2, 12))]
    if rng.random() < 0.3:
        labels.append(pick(rng, string.ascii_lowercase, rng.randint(2, 8)))
    tld = rng.choice(["com", "org", "io", "dev", "co.uk", "de", "museum", "app"])
    address = f"{local}@{'.'.join(labels)}.{tld}"
    if rng.random() < 0.2:
        address = address.upper()
    return address, address


def _nxx(rng: random.Random) -> str:
    return str(rng.randint(2, 9)) + pick(rng, string.digits, 2)


def gen_phone(rng: random.Random) -> tuple[str, str]:
    area, exchange, line = _nxx(rng), _nxx(rng), pick(rng, string.digits, 4)
    cc = str(rng.choice([33, 44, 49, 61, 81, 91, 353, 972]))
    formats = [
        f"({area}) {exchange}-{line}",
        f"({area}){exchange}-{line}",
        f"{area}-{exchange}-{line}",
        f"{area}.{exchange}.{line}",
        f"{area} {exchange} {line}",
        f"1-{area}-{exchange}-{line}",
        f"1 ({area}) {exchange}-{line}",
        f"+1 {area} {exchange} {line}",
        f"+1 ({area}) {exchange}-{line}",
        f"+1-{area}-{exchange}-{line}",
        f"+1{area}{exchange}{line}",
        f"+{cc} {pick(rng, string.digits, 2)} {pick(rng, string.digits, 4)} {line}",
        f"+{cc} (0){pick(rng, string.digits, 2)} {pick(rng, string.digits, 4)} {line}",
        f"+{cc}-{pick(rng, string.digits, 3)}-{pick(rng, string.digits, 3)}-{line}",
        f"0{pick(rng, string.digits, 2)} {pick(rng, string.digits, 4)} {line}",  # UK 3-4-4
        f"07{pick(rng, string.digits, 3)} {pick(rng, string.digits, 6)}",  # UK mobile 5-6
        f"0{rng.randint(1, 9)} {' '.join(pick(rng, string.digits, 2) for _ in range(4))}",  # FR
        f"0{pick(rng, string.digits, 2)}-{pick(rng, string.digits, 8)}",  # DE 3-8
    ]
    phone = rng.choice(formats)
    return phone, phone


CARD_PREFIXES = [
    ("4", 16),
    ("4", 13),
    ("4", 19),
    ("51", 16),
    ("55", 16),
    ("2221", 16),
    ("2720", 16),
    ("34", 15),
    ("37", 15),
    ("6011", 16),
    ("65", 16),
    ("644", 16),
    ("3528", 16),
    ("3589", 16),
    ("36", 14),
    ("300", 14),
    ("62", 16),
    ("62", 19),
    ("50", 16),
    ("58", 18),
]


def gen_payment_card(rng: random.Random) -> tuple[str, str]:
    prefix, length = rng.choice(CARD_PREFIXES)
    number = luhn_complete(prefix + pick(rng, string.digits, length - len(prefix) - 1))
    style = rng.randrange(3)
    if style == 1 and length == 16:
        sep = rng.choice(" -")
        number = sep.join(number[i : i + 4] for i in range(0, 16, 4))
    elif style == 2 and length == 15:
        sep = rng.choice(" -")
        number = f"{number[:4]}{sep}{number[4:10]}{sep}{number[10:]}"
    return number, number


def gen_cli_credential(rng: random.Random) -> tuple[str, str]:
    value = pick(rng, ALNUM, rng.randint(10, 30)) + rng.choice(string.digits)
    template = rng.choice(
        [
            "aws configure set aws_secret_access_key {v}",
            "npm config set //registry.npmjs.org/:_authToken {v}",
            "huggingface-cli login --token {v}",
            "tool --api-key {v} --verbose",
            "deploy --db-password {v}",
            "keytool -importkeystore -srcstorepass {v} -destkeystore k.jks",
            "Connect-Thing -Password {v} -Force",
            "mysql -u root -p {v} appdb",
            "gh secret set API_TOKEN --body {v}",
        ]
    )
    return template.format(v=value), value


def gen_encoded_secret(rng: random.Random) -> tuple[str, str]:
    import base64

    token = "ghp_" + pick(rng, ALNUM, 36)
    inner = rng.choice(
        [f"password={pick(rng, ALNUM, 12)}9", f"GITHUB_TOKEN={token}", token, f"x {token} y"]
    )
    kind = rng.randrange(4)
    if kind == 0:
        blob = base64.b64encode(inner.encode()).decode()
    elif kind == 1:
        blob = base64.urlsafe_b64encode(inner.encode()).decode().rstrip("=")
    elif kind == 2:
        blob = inner.encode().hex()
    else:
        blob = "".join(f"%{b:02X}" for b in inner.encode())
    return blob, blob


def gen_random_token(rng: random.Random) -> tuple[str, str]:
    """A key with nothing around it to name it: base62 at random, each kind twice, and
    not typed out (no five characters in a row of an alphabet, no character four times);
    or, one time in three, random bytes in base64 (:func:`gen_base64_key`)."""
    if rng.random() < 1 / 3:
        return gen_base64_key(rng)
    walks = [
        alphabet[i : i + 5]
        for alphabet in (string.ascii_lowercase, string.ascii_uppercase, string.digits)
        for i in range(len(alphabet) - 4)
    ]
    while True:
        body = [rng.choice(ALNUM) for _ in range(rng.randint(18, 58))]
        body += [*rng.sample(string.ascii_uppercase, 2), *rng.sample(string.ascii_lowercase, 2)]
        body += rng.sample(string.digits, 2)
        rng.shuffle(body)
        token = "".join(body)
        if re.search(r"(.)\1{3}", token) is None and not any(w in token for w in walks):
            return token, token


def gen_base64_key(rng: random.Random) -> tuple[str, str]:
    """A key in base64 with nothing around it to name it: random bytes (30 to 300), with a
    ``+`` or ``/`` and two digits at least."""
    while True:
        key = base64.b64encode(rng.randbytes(rng.randint(30, 300))).decode()
        body = key.rstrip("=")
        if ("+" in body or "/" in body) and sum(map(str.isdigit, body)) >= 2:
            return key, key


def gen_split_token(rng: random.Random) -> tuple[str, str]:
    token = rng.choice(["ghp_", "glpat-", "sk-ant-api03-", "xoxb-1234567890-"]) + pick(
        rng, ALNUM, 36
    )
    cut = rng.randint(len(token) // 3, 2 * len(token) // 3)
    joiner = rng.choice(['" + "', "' '", '"\n    "', '" .. "'])
    text = f"{token[:cut]}{joiner}{token[cut:]}"
    return f"{text}", text


def gen_paired_secret(rng: random.Random) -> tuple[str, str]:
    value = (
        rng.choice(string.ascii_uppercase)
        + pick(rng, ALNUM, rng.randint(10, 24))
        + rng.choice(string.digits)
        + rng.choice(string.ascii_lowercase)
    )
    name = rng.choice(["DB_PASSWORD", "API_TOKEN", "ClientSecret", "stripe.apiKey", "ADMIN_PWD"])
    form = rng.choice(
        [
            "- name: {n}\n  value: {v}",
            '{{"name": "{n}", "value": "{v}"}}',
            '{{"Key": "{n}", "Value": "{v}"}}',
            '{{"ParameterKey": "{n}", "ParameterValue": "{v}"}}',
            '<add key="{n}" value="{v}" />',
            '<entry key="{n}">{v}</entry>',
        ]
    )
    return form.format(n=name, v=value), value


# The credential an instance's address is written beside (redacted as a secret of its own).
INSTANCE_CREDENTIAL = re.compile(r"(?<=password: )[A-Za-z0-9]{20}\d")


def gen_instance_host(rng: random.Random) -> tuple[str, str]:
    instance = rng.choice(string.ascii_lowercase) + pick(
        rng, string.ascii_lowercase + string.digits, rng.randint(5, 20)
    )
    service = rng.choice(
        [
            *("blob.core.windows.net", "azure-api.net", "search.windows.net", "azconfig.io"),
            *("appsync-api.us-east-1.amazonaws.com", "cloud.couchbase.com", "db.corp.internal"),
        ]
    )
    path = rng.choice(["", "/", "/graphql", "/api/" + pick(rng, ALNUM, 12)])
    key, value, secret = rng.choice(
        [
            ("SERVICE_URL=", f"https://{instance}.{service}{path}", f"{instance}.{service}{path}"),
            ("endpoint: ", f"https://{instance}.{service}{path}", f"{instance}.{service}{path}"),
            ("db_host = ", f"{instance}.{service}", f"{instance}.{service}"),
            ('"AccountName": ', instance, instance),
        ]
    )
    credential = pick(rng, ALNUM, 20) + rng.choice(string.digits)
    return f"{key}{value}\npassword: {credential}", secret


GENERATORS: dict[str, Callable[[random.Random], tuple[str, str]]] = {
    "private_key": gen_private_key,
    "jwt": gen_jwt,
    "aws_access_key_id": gen_aws_access_key_id,
    "aws_secret_access_key": gen_aws_secret_access_key,
    "github_token": gen_github_token,
    "gitlab_token": gen_gitlab_token,
    "slack_token": gen_slack_token,
    "slack_webhook": gen_slack_webhook,
    "google_api_key": gen_google_api_key,
    "stripe_key": gen_stripe_key,
    "anthropic_api_key": gen_anthropic_api_key,
    "openai_api_key": gen_openai_api_key,
    "url_credentials": gen_url_credentials,
    "instance_host": gen_instance_host,
    "auth_header": gen_auth_header,
    "credential_assignment": gen_credential_assignment,
    "vendor_token": gen_vendor_token,
    "shaped_token": gen_shaped_token,
    "telegram_bot_token": gen_telegram_bot_token,
    "mailchimp_api_key": gen_mailchimp_api_key,
    "cli_password": gen_cli_password,
    "netrc_password": gen_netrc_password,
    "xml_secret": gen_xml_secret,
    "paired_secret": gen_paired_secret,
    "aws_key_pair": gen_aws_key_pair,
    "docker_auth": gen_docker_auth,
    "prose_password": gen_prose_password,
    "cli_credential": gen_cli_credential,
    "encoded_secret": gen_encoded_secret,
    "split_token": gen_split_token,
    "random_token": gen_random_token,
    "email": gen_email,
    "phone": gen_phone,
    "payment_card": gen_payment_card,
}

CONTEXTS = [
    "{}",
    "see {} here",
    "line one\n{}\nline three",
    '"{}"',
    "'{}',",
    "({})",
    "<{}>",
    "value is {}.",
    "[{}]",
    "\t{}\r\n",
]


def samples(rule: str) -> Iterator[tuple[str, str]]:
    rng = random.Random(f"recall-{rule}")
    for _ in range(SAMPLES_PER_RULE):
        text, secret = GENERATORS[rule](rng)
        for context in CONTEXTS:
            yield context.format(text), secret
        yield json.dumps({"output": text, "exit_code": 0}), json.dumps(secret)[1:-1]


def test_every_builtin_rule_has_a_generator() -> None:
    assert set(GENERATORS) == {rule.name for rule in BUILTIN_RULES}


@pytest.mark.parametrize("rule", list(GENERATORS))
def test_rule_finds_every_generated_sample(rule: str) -> None:
    redactor = build_redactor(RedactionConfig(rules=("all",)))
    missed = []
    for text, secret in samples(rule):
        redacted, counts = redactor.redact_text(text)
        # Exactly the secret is replaced: nothing of it is left, nothing around it is lost.
        expected, expected_counts = text.replace(secret, f"[REDACTED:{rule}]"), {rule: 1}
        if rule == "aws_key_pair":  # the key id beside it is a secret of its own
            expected = re.sub("AKIA[A-Z0-9]{16}", "[REDACTED:aws_access_key_id]", expected)
            expected_counts["aws_access_key_id"] = 1
        if rule == "instance_host":  # the credential beside it is a secret of its own
            expected = INSTANCE_CREDENTIAL.sub("[REDACTED:credential_assignment]", expected)
            expected_counts["credential_assignment"] = 1
        if redacted != expected or counts != expected_counts:
            missed.append((text, redacted, counts))
    total = SAMPLES_PER_RULE * (len(CONTEXTS) + 1)
    assert not missed, f"{rule}: missed {len(missed)} of {total}, first: {missed[0]!r}"


@pytest.mark.parametrize("rule", list(GENERATORS))
def test_rule_alone_finds_its_samples(rule: str) -> None:
    """Each rule stands on its own: enabled alone, it still finds every sample."""
    redactor = build_redactor(RedactionConfig(rules=(rule,)))
    for text, secret in samples(rule):
        redacted, counts = redactor.redact_text(text)
        assert secret not in redacted, (rule, text, redacted)
        assert set(counts) == {rule}, (text, counts)


def test_redacting_twice_changes_nothing_more() -> None:
    redactor = build_redactor(RedactionConfig(rules=("all",)))
    for rule in GENERATORS:
        for text, _ in samples(rule):
            once, _ = redactor.redact_text(text)
            twice, counts = redactor.redact_text(once)
            assert (twice, counts) == (once, {}), (rule, text, once)
