"""
The recorder's Prometheus metrics:

    gamehub_records_pending          records waiting to be written
    gamehub_records_failed_total     write attempts that failed (retried)
    gamehub_records_dropped_total    records given up (logged)
    gamehub_records_written_total    records stored
"""

from typing import Iterator

from prometheus_client.core import (
    CounterMetricFamily, GaugeMetricFamily, Metric)
from prometheus_client.registry import Collector

from hub.records.recorder import Recorder


class RecordsCollector(Collector):
    """
    A Prometheus collector over a L{hub.records.recorder.Recorder}.
    """

    def __init__(self, recorder: Recorder) -> None:
        self.recorder = recorder

    def collect(self) -> Iterator[Metric]:
        """
        Yield the queue's gauge and counters.
        """
        recorder = self.recorder
        yield GaugeMetricFamily(
            "gamehub_records_pending", "Game records waiting to be written.",
            value=len(recorder.pending))
        yield CounterMetricFamily(
            "gamehub_records_failed", "Record writes that failed (the "
            "records stay queued and are retried).", value=recorder.failed)
        yield CounterMetricFamily(
            "gamehub_records_dropped", "Game records given up (queue full, "
            "refused by the database, or unwritten at shutdown).",
            value=recorder.dropped)
        yield CounterMetricFamily(
            "gamehub_records_written", "Game records stored.",
            value=recorder.written)
