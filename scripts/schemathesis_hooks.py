"""Rules of the API that JSON Schema cannot state, taught to schemathesis for `npm run fuzz`.

Loaded through SCHEMATHESIS_HOOKS by scripts/fuzz.ts. Each rule is also stated in the document in
words (a description), so a person reads the same rule the fuzzer follows.
"""

import re
import uuid

from hypothesis import strategies as st

import schemathesis

IDEMPOTENCY_KEY = re.compile(r"[\x20-\x7e]{1,255}")


def _check_digit(digits: list[int], weights: list[int]) -> int:
    rest = sum(d * w for d, w in zip(digits, weights)) % 11
    return 0 if rest < 2 else 11 - rest


def _cpf(base: list[int]) -> str:
    d1 = _check_digit(base, list(range(10, 1, -1)))
    d2 = _check_digit(base + [d1], list(range(11, 1, -1)))
    return "".join(map(str, base + [d1, d2]))


def _cnpj(base: list[int]) -> str:
    w1 = [5, 4, 3, 2, 9, 8, 7, 6, 5, 4, 3, 2]
    d1 = _check_digit(base, w1)
    d2 = _check_digit(base + [d1], [6] + w1)
    return "".join(map(str, base + [d1, d2]))


def _varied(digits: list[int]) -> bool:
    # A run of one digit (000.000.000-00) has valid check digits but is refused as a CPF/CNPJ.
    return len(set(digits)) > 1


# format: cpf / cnpj / cpf-cnpj — 11 (CPF) or 14 (CNPJ) digits whose check digits match.
CPF = st.lists(st.integers(0, 9), min_size=9, max_size=9).filter(_varied).map(_cpf)
CNPJ = st.lists(st.integers(0, 9), min_size=12, max_size=12).filter(_varied).map(_cnpj)
schemathesis.openapi.format("cpf", CPF)
schemathesis.openapi.format("cnpj", CNPJ)
schemathesis.openapi.format("cpf-cnpj", st.one_of(CPF, CNPJ))


def _holds_nul(value) -> bool:
    if isinstance(value, str):
        return "\x00" in value
    if isinstance(value, dict):
        return any(_holds_nul(k) or _holds_nul(v) for k, v in value.items())
    if isinstance(value, list):
        return any(_holds_nul(v) for v in value)
    return False


@schemathesis.hook
def filter_body(context, body):
    """No U+0000 anywhere, object keys included (`generation.allow-x00` covers only string values)."""
    return not _holds_nul(body)


@schemathesis.hook
def before_call(context, case, kwargs):
    """A client sends a new Idempotency-Key with each new request (the header's description says so).

    A well-formed generated key is replaced by a fresh UUID: generated keys repeat, and the same key
    with another request is, by design, a 422. A malformed key (negative testing) is sent as generated.
    """
    headers = case.headers or {}
    for name in list(headers):
        if name.lower() == "idempotency-key" and isinstance(headers[name], str):
            if IDEMPOTENCY_KEY.fullmatch(headers[name]):
                headers[name] = str(uuid.uuid4())


# format: binary — the only binary string of a request is an upload's file, whose bytes must be of a
# type the API accepts (their magic number decides, api/routes/files.ts): a 1×1 PNG or a tiny PDF.
PNG_1X1 = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010802000000907753de"
    "0000000c4944415408d763f8cfc000000301010018dd8db00000000049454e44ae426082"
)
PDF = b"%PDF-1.4\n1 0 obj << /Type /Catalog >> endobj\ntrailer << /Root 1 0 R >>\n%%EOF\n"
schemathesis.openapi.format("binary", st.sampled_from([PNG_1X1, PDF]))
