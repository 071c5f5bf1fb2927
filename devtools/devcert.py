"""A self-signed development certificate for the gateway (``make run`` and tests).

Production certificates come from the deployment (a Secret); this one is made on a
developer's machine, valid for localhost and 127.0.0.1, and trusted by pointing the
client at it (``triad-client --ca``).
"""

from __future__ import annotations

import ipaddress
from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

RENEW_BEFORE = timedelta(days=1)
"""A certificate this close to its end (or past it) is made anew: it is valid a year,
and ``.run/`` outlives that on a developer's machine."""


def ensure_dev_certificate(directory: Path) -> tuple[Path, Path]:
    """``(cert, key)`` in ``directory``, made on first use and reused after, until it
    is about to expire: then a new one is made (clients and browsers trust it anew)."""
    cert_path, key_path = directory / "gateway-dev.crt", directory / "gateway-dev.key"
    now = datetime.now(UTC)
    if cert_path.exists() and key_path.exists() and _still_valid(cert_path, now):
        return cert_path, key_path
    directory.mkdir(parents=True, exist_ok=True)
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - timedelta(minutes=5))
        .not_valid_after(now + timedelta(days=365))
        .add_extension(
            x509.SubjectAlternativeName(
                [x509.DNSName("localhost"), x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]
            ),
            critical=False,
        )
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    key_path.write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    key_path.chmod(0o600)
    cert_path.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    return cert_path, key_path


def _still_valid(cert_path: Path, now: datetime) -> bool:
    """Whether the certificate there is valid now and for a while yet (an unreadable one
    is not)."""
    try:
        cert = x509.load_pem_x509_certificate(cert_path.read_bytes())
    except ValueError:
        return False
    return cert.not_valid_before_utc <= now and now + RENEW_BEFORE < cert.not_valid_after_utc
