"""Test only: the farm's Celery app with one consumer step that raises, at start-up, what kombu
raises when it reconnects a channel whose connection is already gone (celery/kombu#582): kombu's own
``Channel._connparams`` reading ``conninfo.hostname`` of ``None``. Run as ``celery -A kombu_bug_app
worker`` (tests/faults/test_worker_reconnect.py); the bug itself fires only on some Redis restarts."""

from celery import bootsteps
from kombu import Connection

from fuzzfarm.farm import app


class KombuReconnectBug(bootsteps.StartStopStep):
    requires = {"celery.worker.consumer.tasks:Tasks"}

    def start(self, c):
        channel_cls = Connection("redis://127.0.0.1:1/0").transport.Channel
        ch = channel_cls.__new__(channel_cls)  # a channel whose connection has gone (no client)
        ch.connection = type("Closed", (), {"client": None})()
        ch._connparams()  # AttributeError: 'NoneType' object has no attribute 'hostname'


app.steps["consumer"].add(KombuReconnectBug)
