#!/bin/sh
echo '{"ok": true}'
