"""A file-backed keyring backend for tests of `metapkg auth`.

Select it in a subprocess with PYTHON_KEYRING_BACKEND=keyring_backend.FileKeyring and
PYTHONPATH=<repo>/tests; it keeps {service: {username: password}} as JSON in the file
named by METAPKG_TEST_KEYRING.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from keyring.backend import KeyringBackend
from keyring.errors import PasswordDeleteError


class FileKeyring(KeyringBackend):
    priority = 1

    @property
    def _path(self) -> Path:
        return Path(os.environ["METAPKG_TEST_KEYRING"])

    def _load(self) -> dict[str, dict[str, str]]:
        try:
            data = json.loads(self._path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        return data if isinstance(data, dict) else {}

    def _save(self, data: dict[str, dict[str, str]]) -> None:
        self._path.write_text(json.dumps(data, sort_keys=True), encoding="utf-8")

    def get_password(self, service: str, username: str) -> str | None:
        return self._load().get(service, {}).get(username)

    def set_password(self, service: str, username: str, password: str) -> None:
        data = self._load()
        data.setdefault(service, {})[username] = password
        self._save(data)

    def delete_password(self, service: str, username: str) -> None:
        data = self._load()
        if username not in data.get(service, {}):
            raise PasswordDeleteError("no such password")
        del data[service][username]
        self._save(data)
