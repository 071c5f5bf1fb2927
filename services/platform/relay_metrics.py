"""The outbox relay's Prometheus metrics (``services.platform.relay``), labelled by relay
name: what it published, what JetStream dropped as duplicates, failed batches, and how far
behind its event log it is."""

from __future__ import annotations

from dataclasses import dataclass

from prometheus_client import CollectorRegistry, Counter, Gauge


@dataclass(frozen=True, slots=True)
class RelayMetrics:
    """The relay's Prometheus metrics, labelled by relay name, in the process's registry."""

    published: Counter
    duplicates: Counter
    errors: Counter
    lag_events: Gauge
    lag_seconds: Gauge

    @classmethod
    def register(cls, registry: CollectorRegistry) -> RelayMetrics:
        labels = ("relay",)
        return cls(
            published=Counter(
                "triad_relay_events_published_total",
                "Events JetStream acknowledged as in the stream (duplicates included).",
                labels,
                registry=registry,
            ),
            duplicates=Counter(
                "triad_relay_duplicates_total",
                "Publishes JetStream dropped as duplicates (a batch retried after its commit "
                "failed).",
                labels,
                registry=registry,
            ),
            errors=Counter(
                "triad_relay_publish_errors_total",
                "Batches that failed (NATS or PostgreSQL unavailable), rolled back for a retry.",
                labels,
                registry=registry,
            ),
            lag_events=Gauge(
                "triad_relay_lag_events",
                "Committed events not yet published when the last batch was read (capped); "
                "1 while they wait behind an older open transaction (not counted then).",
                labels,
                registry=registry,
            ),
            lag_seconds=Gauge(
                "triad_relay_lag_seconds",
                "Age of the oldest committed event not yet published when the last batch was "
                "read, whether readable or held back behind an older open transaction.",
                labels,
                registry=registry,
            ),
        )
