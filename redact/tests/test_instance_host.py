"""An instance's address beside its credential, drawn at random (``instance_host``).

Found: a random instance's URL, host or account name under a random address key, with a
credential assigned a few lines away, in random configuration forms. Left alone: the same
addresses with no credential near them, and addresses that name no instance (loopback,
documentation domains, a registered domain alone, a public service's API host,
placeholders) beside a credential.
"""

from __future__ import annotations

import random
import string

from hypothesis import given, settings
from hypothesis import strategies as st

from amplifier_hooks_redact import RedactionConfig, build_redactor

REDACTOR = build_redactor(RedactionConfig())
ALONE = build_redactor(RedactionConfig(rules=("instance_host",)))
SETTINGS = settings(max_examples=150, deadline=None, derandomize=True)

LOWER = string.ascii_lowercase
LOWER_ALNUM = string.ascii_lowercase + string.digits
BASE62 = string.ascii_letters + string.digits

_labels = st.text(LOWER_ALNUM, min_size=4, max_size=20).map(lambda s: "q" + s)
_services = st.sampled_from(
    [
        "blob.core.windows.net",
        "azure-api.net",
        "search.windows.net",
        "azurewebsites.net",
        "azconfig.io",
        "appsync-api.eu-central-1.amazonaws.com",
        "cloud.couchbase.com",
        "metabase.com",
        "db.corp.internal",
        "rds.amazonaws.com",
    ]
)
_paths = st.sampled_from(["", "/", "/graphql", "/api/v2/items", "/indexes/products"])
_schemes = st.sampled_from(["https", "http", "couchbases", "postgres", "wss"])
_url_keys = st.sampled_from(
    ["endpoint", "SERVICE_URL", "azureURL", "gateway_url", "baseUri", "API_ENDPOINT", "url"]
)
_host_keys = st.sampled_from(["DB_HOST", "host", "redisHost", "couchbase_domain", "server"])
_account_keys = st.sampled_from(
    ["AccountName", "storageAccountName", "DEFAULT_ACCOUNT_NAME", "StorageAccount"]
)
_forms = st.sampled_from(
    ["{k}={v}", "{k}: {v}", '{k}: "{v}"', '"{k}": "{v}",', "{k} = '{v}'", '{{ "{k}", "{v}" }},']
)
_credential_keys = st.sampled_from(
    ["password", "AccountKey", "API_KEY", "client_secret", "SUBSCRIPTION_KEY", "token"]
)
_credentials = st.text(BASE62, min_size=16, max_size=40).map(lambda s: s + "7")
_filler = st.lists(
    st.sampled_from(["timeout: 30", "retries: 3", "# settings", "region: westeurope", ""]),
    max_size=4,
)


def _block(line: str, credential_line: str | None, before: list[str], after: bool) -> str:
    lines = [*before, line]
    if credential_line is not None:
        lines = [*lines, credential_line] if after else [credential_line, *lines]
    return "\n".join(lines)


@st.composite
def _addresses(draw: st.DrawFn) -> tuple[str, str]:
    """``(line, the address that must go)``: a URL, a host or an account name under its key."""
    label, service = draw(_labels), draw(_services)
    kind = draw(st.sampled_from(["url", "host", "account"]))
    if kind == "url":
        rest = f"{label}.{service}{draw(_paths)}"
        key, value, secret = draw(_url_keys), f"{draw(_schemes)}://{rest}", rest
    elif kind == "host":
        key = draw(_host_keys)
        value = secret = f"{label}.{service}"
    else:
        key = draw(_account_keys)
        value = secret = label
    return draw(_forms).format(k=key, v=value), secret


@SETTINGS
@given(_addresses(), _credential_keys, _credentials, _forms, _filler, st.booleans())
def test_an_instance_beside_a_credential_is_found(
    address: tuple[str, str],
    credential_key: str,
    credential: str,
    form: str,
    filler: list[str],
    after: bool,
) -> None:
    line, secret = address
    text = _block(line, form.format(k=credential_key, v=credential), filler, after)
    redacted, counts = REDACTOR.redact_text(text)
    assert secret not in redacted, (text, redacted)
    assert counts.get("instance_host") == 1, (text, counts)
    alone, _ = ALONE.redact_text(text)
    assert secret not in alone, (text, alone)


@SETTINGS
@given(_addresses(), _filler)
def test_an_address_with_no_credential_near_it_stays(
    address: tuple[str, str], filler: list[str]
) -> None:
    text = _block(address[0], None, filler, True)
    assert REDACTOR.redact_text(text)[0] == text


@SETTINGS
@given(_addresses(), st.integers(min_value=8, max_value=14), _credentials)
def test_a_credential_far_away_leaves_the_address(
    address: tuple[str, str], distance: int, credential: str
) -> None:
    line, _ = address
    text = "\n".join([line, *(["region: westeurope"] * distance), f"password: {credential}"])
    redacted, _ = REDACTOR.redact_text(text)
    assert redacted.splitlines()[0] == line, (text, redacted)


_NO_INSTANCE = st.sampled_from(
    [
        "https://example.com",
        "https://api.example.com/v1/user",
        "mongodb://localhost",
        "mongodb://localhost:27017/app",
        "http://127.0.0.1:8080/health",
        "redis://0.0.0.0:6379",
        "https://github.com/org/repo",
        "https://api.openai.com/v1",
        "https://www.googleapis.com/auth",
        "https://git.company.com:7990/scm/proj/repo.git",
        "$DB_HOST",
        "${SERVICE_URL}",
        "{{ host }}",
        "<your-host>",
        "db.test",
        "svc.local",
        "host.docker.internal",
        "this.response.url",
        "self.config.host",
        "options.server.domain",
    ]
)


@SETTINGS
@given(_url_keys | _host_keys, _NO_INSTANCE, _credential_keys, _credentials, _forms)
def test_an_address_naming_no_instance_stays_beside_a_credential(
    key: str, value: str, credential_key: str, credential: str, form: str
) -> None:
    line = form.format(k=key, v=value)
    text = f"{line}\n{form.format(k=credential_key, v=credential)}"
    redacted, counts = REDACTOR.redact_text(text)
    assert redacted.splitlines()[0] == line, (text, redacted)
    assert "instance_host" not in counts


@st.composite
def _generated_hosts(draw: st.DrawFn) -> str:
    """A host label drawn at random: 12 to 36 letters and digits, four digits or more."""
    rng = random.Random(draw(st.integers(min_value=0, max_value=2**32)))
    size = rng.randint(12, 36)
    label = [rng.choice(LOWER_ALNUM) for _ in range(size - 4)]
    label += [rng.choice(string.digits) for _ in range(4)]
    rng.shuffle(label)
    return "k" + "".join(label)


@SETTINGS
@given(_generated_hosts(), _services, _credentials)
def test_a_generated_host_in_any_field_beside_a_secret_is_found(
    label: str, service: str, credential: str
) -> None:
    url = f"https://{label}.{service}/api"
    text = f"<id>{{{url}}}</id>\n<secret>{credential}</secret>"
    redacted, _ = REDACTOR.redact_text(text)
    assert label not in redacted, (text, redacted)


@SETTINGS
@given(st.text(LOWER, min_size=12, max_size=30), _services, _credentials)
def test_a_worded_host_in_an_unnamed_field_stays(label: str, service: str, credential: str) -> None:
    url = f"https://{label}.{service}/api"
    text = f"<id>{{{url}}}</id>\n<secret>{credential}</secret>"
    redacted, _ = REDACTOR.redact_text(text)
    assert url in redacted, (text, redacted)
