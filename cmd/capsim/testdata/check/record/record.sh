#!/bin/sh
# Records the shop's logs in ../recorded: nginx (Debian's, already
# installed) on 127.0.0.1:18080 in front of the tiny Go server, driven by
# shoppers arriving at 2/s for 240 s. Nothing is installed; everything
# lives in /tmp/capsim-record and stops when the drive ends.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=/tmp/capsim-record
rm -rf "$work" && mkdir -p "$work/logs" "$work/tmp"
(cd "$here/server" && go build -o "$work/shop-server" main.go)
(cd "$here/driver" && go build -o "$work/shop-driver" main.go)
"$work/shop-server" "$work/logs/app.jsonl" &
server=$!
nginx -p "$work" -c "$here/nginx.conf" -g 'daemon on;'
sleep 1
"$work/shop-driver" 2 240s "$work/logs/client.jsonl"
sleep 3 # the last receipts
kill "$(cat "$work/nginx.pid")" "$server"
for f in access.log app.jsonl client.jsonl; do gzip -9 -c "$work/logs/$f" > "$here/../recorded/$f.gz"; done
