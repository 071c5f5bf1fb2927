"""make run's development certificate: made once, reused, and made anew before it
expires (it is valid a year, and ``.run/`` outlives that on a developer's machine)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

from devtools.devcert import ensure_dev_certificate


def valid_until(path: Path) -> datetime:
    return x509.load_pem_x509_certificate(path.read_bytes()).not_valid_after_utc


def write_certificate(directory: Path, not_after: datetime) -> None:
    """A certificate as make run made it a year before ``not_after``."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "localhost")])
    cert = (
        x509.CertificateBuilder()
        .subject_name(name)
        .issuer_name(name)
        .public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(not_after - timedelta(days=365))
        .not_valid_after(not_after)
        .sign(key, hashes.SHA256())
    )
    (directory / "gateway-dev.key").write_bytes(
        key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )
    )
    (directory / "gateway-dev.crt").write_bytes(cert.public_bytes(serialization.Encoding.PEM))


def test_the_certificate_is_made_once_and_reused(tmp_path: Path) -> None:
    cert, key = ensure_dev_certificate(tmp_path)
    made = (cert.read_bytes(), key.read_bytes())
    assert valid_until(cert) > datetime.now(UTC) + timedelta(days=364)
    again = ensure_dev_certificate(tmp_path)
    assert (again[0].read_bytes(), again[1].read_bytes()) == made


def test_an_expired_or_expiring_certificate_is_made_anew(tmp_path: Path) -> None:
    """An expired one made every client refuse the gateway ('the gateway's certificate
    is not trusted: pass --ca'), though it was make run's own."""
    now = datetime.now(UTC)
    for not_after in (now - timedelta(days=30), now + timedelta(hours=2)):
        write_certificate(tmp_path, not_after)
        cert, _ = ensure_dev_certificate(tmp_path)
        assert valid_until(cert) > now + timedelta(days=364)
