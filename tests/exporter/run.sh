#!/bin/bash
# SPDX-License-Identifier: GPL-2.0-only
# The Prometheus exporter (qperf --exporter, docs/exporter.md), on
# loopback: our exporter on port 0 (-lpf) in front of our server on port
# 0, driven with curl and scraped by a real Prometheus (Debian's
# prometheus package) that this suite starts with a temporary config and
# storage.  Checks: promtool accepts /metrics and the probe pages; a probe
# of each kind answers plausible figures; a dead server fails at once with
# success 0 and its error; a server that never answers is cut at the
# deadline; disallowed tests and options and malformed queries get 400
# and a log line; 100 scrapes at once each get 200 or 503, as many of
# each as /metrics counts, and the exporter goes on; a client sending a
# byte a second is cut while a probe succeeds; started as root it runs as
# nobody; usage errors exit 2.  Prometheus' API must return the series
# with success 1, bandwidth and latency above 0.
#
# Alone: bash tests/exporter/run.sh, or tests/run.sh exporter[:PATTERN].

. "$(dirname "$0")/../lib.sh"

for tool in curl promtool prometheus python3; do
	if ! command -v "$tool" >/dev/null; then
		fail "needs $tool (scripts/install-deps --test)"
		finish
	fi
done

# http NAME URL [CURL-ARGS...]: GET URL; sets CODE and BODY (file $T/body).
http() {
	local url=$1
	shift
	CODE=$(curl -s -m 20 -o "$T/body" -w '%{http_code}' "$@" "$url")
	BODY=$(cat "$T/body")
}

# metric NAME[{LABELS}] [FILE]: the value of the first sample so named.
metric() {
	awk -v m="$1" '$1 == m { print $2; exit }' "${2:-$T/body}"
}

positive() { awk -v v="$1" 'BEGIN { exit !(v + 0 > 0) }'; }

section usage
run "$QPERF" --exporter 127.0.0.1
expect "usage: --exporter without a port" 2 '^$' 'exporter: 127.0.0.1: bad address'
run "$QPERF" --exporter :0 --exporter_allow tcp_bw,nonsense
expect "usage: --exporter_allow with a name that is neither test nor option" 2 '^$' 'nonsense: not a test'
run "$QPERF" --exporter :0 --exporter_allow tcp_bw,listen_port
expect "usage: --exporter_allow with an option that sets no parameter" 2 '^$' 'listen_port: not a test'
run "$QPERF" --exporter :0 --exporter_max 0
expect "usage: --exporter_max 0" 2 '^$' 'exporter_max: 0: must be greater than 0'
run "$QPERF" --exporter_max 2
expect "usage: --exporter_max without --exporter" 2 '^$' 'needs --exporter'
run "$QPERF" --exporter :0 localhost tcp_bw
expect "usage: --exporter with a host and a test" 2 '^$' 'runs no test itself'

section setup
if ! start_server; then
	fail "qperf server starts"
	finish
fi
QP=$SERVER_PORT
EXP_LOG=$T/exporter.log
"$QPERF" --exporter 127.0.0.1:0 -lpf "$T/exp.port" --exporter_max 4 \
	--exporter_allow tcp_bw,tcp_lat,time,msg_size,expect >"$T/exp.out" \
	2>"$EXP_LOG" </dev/null &
EXP_PID=$!
track_pid "$EXP_PID"
exp_up() { [ -s "$T/exp.port" ] || { pid_gone "$EXP_PID" && return 2; return 1; }; }
if ! wait_for 20 exp_up; then
	fail "exporter publishes its port" "$(cat "$EXP_LOG")"
	finish
fi
EP=$(cat "$T/exp.port")
U=http://127.0.0.1:$EP
wait_for 10 grep -q "qperf exporter on http://127.0.0.1:$EP/" "$T/exp.out"
check "exporter prints its address with the chosen port" \
	grep -q "^qperf exporter on http://127.0.0.1:$EP/\$" "$T/exp.out"

if [ "$(id -u)" = 0 ]; then
	uid=$(awk '/^Uid:/ { print $2 }' "/proc/$EXP_PID/status")
	if [ "$uid" = "$(id -u nobody)" ] && grep -q 'started as root: running as nobody' "$EXP_LOG"; then
		pass "started as root, it runs as nobody"
	else
		fail "started as root, it runs as nobody" "uid $uid" "$(cat "$EXP_LOG")"
	fi
else
	skip "started as root, it runs as nobody" "not root"
fi

# A client that sends its request one byte a second, in the background
# while the probes below run; judged at the end.
python3 - "$EP" >"$T/slow.out" 2>&1 <<'EOF' &
import socket, sys, time
req = b"GET /metrics HTTP/1.1\r\nHost: 127.0.0.1\r\nUser-Agent: slow\r\n\r\n"
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=30)
sent = 0
try:
    for b in req:
        s.sendall(bytes([b]))
        sent += 1
        time.sleep(1)
        s.setblocking(False)
        try:
            if s.recv(4096) == b"":
                print("cut after", sent, "of", len(req), "bytes"); sys.exit(0)
        except BlockingIOError:
            pass
        s.setblocking(True)
    print("whole request sent:", s.recv(4096)[:40])
except (BrokenPipeError, ConnectionResetError):
    print("cut after", sent, "of", len(req), "bytes")
EOF
SLOW_PID=$!
track_pid "$SLOW_PID"

section metrics
http "$U/metrics"
if [ "$CODE" = 200 ] && promtool check metrics <"$T/body" >"$T/lint" 2>&1 &&
	[ "$(metric qperf_exporter_probes_total)" = 0 ]; then
	pass "/metrics: 200, promtool check metrics accepts it, no probe yet"
else
	fail "/metrics: 200, promtool check metrics accepts it, no probe yet" "code $CODE" "$(cat "$T/lint")" "$BODY"
fi
http "$U/metrics" -H 'Accept: application/openmetrics-text;version=1.0.0'
if [ "$CODE" = 200 ] && [ "$(tail -n 1 "$T/body")" = "# EOF" ] &&
	grep -q '^# TYPE qperf_exporter_probes counter$' "$T/body"; then
	pass "/metrics as OpenMetrics: counters typed by family, # EOF last"
else
	fail "/metrics as OpenMetrics: counters typed by family, # EOF last" "$BODY"
fi

section probe
http "$U/probe?target=127.0.0.1:$QP&test=tcp_lat&time=0.2"
cp "$T/body" "$T/lat.page"
if [ "$CODE" = 200 ] && promtool check metrics <"$T/body" >"$T/lint" 2>&1 &&
	[ "$(metric qperf_probe_success)" = 1 ] &&
	positive "$(metric qperf_latency_seconds)" &&
	positive "$(metric 'qperf_latency_distribution_seconds{quantile="0.99"}')" &&
	positive "$(metric 'qperf_messages{end="server",direction="recv"}')" &&
	grep -q '^qperf_cpus_used{end="server"} ' "$T/body"; then
	pass "tcp_lat probe: promtool accepts it; success 1, latency, p99, server's messages and CPU"
else
	fail "tcp_lat probe: promtool accepts it; success 1, latency, p99, server's messages and CPU" "code $CODE" "$(cat "$T/lint")" "$BODY"
fi
http "$U/probe?target=127.0.0.1:$QP&test=tcp_bw&time=0.2&msg_size=16K&expect=bw>=1TB" \
	-H 'Accept: application/openmetrics-text;version=1.0.0'
if [ "$CODE" = 200 ] && [ "$(metric qperf_probe_success)" = 1 ] &&
	positive "$(metric qperf_bw_bytes_per_second)" &&
	[ "$(metric qperf_probe_exit_status)" = 3 ] &&
	[ "$(metric qperf_verdict_pass)" = 0 ] &&
	[ "$(metric 'qperf_verdict_check_pass{expr="bw>=1TB"}')" = 0 ] &&
	grep -q '^qperf_path_stat{end="client",source="tcp",stat="tcp_retrans"} ' "$T/body" &&
	[ "$(tail -n 1 "$T/body")" = "# EOF" ]; then
	pass "tcp_bw probe (OpenMetrics): bandwidth, the TCP counters, a failed expect's verdict"
else
	fail "tcp_bw probe (OpenMetrics): bandwidth, the TCP counters, a failed expect's verdict" "code $CODE" "$BODY"
fi
# The text format without the OpenMetrics ending, for promtool.
sed '/^# EOF$/d' "$T/body" | promtool check metrics >"$T/lint" 2>&1
check "promtool check metrics accepts the tcp_bw page" test ! -s "$T/lint"

DEAD=$(free_port)
http "$U/probe?target=127.0.0.1:$DEAD&test=tcp_lat"
if [ "$CODE" = 200 ] && grep -q '^qperf_probe_success{error=".*Connection refused.*"} 0$' "$T/body" &&
	! grep -q '^qperf_latency_seconds' "$T/body" &&
	promtool check metrics <"$T/body" >/dev/null 2>&1; then
	pass "a dead server: success 0 with the connect error (not a timeout), no figures"
else
	fail "a dead server: success 0 with the connect error (not a timeout), no figures" "code $CODE" "$BODY"
fi

# A server that takes the connection and never answers: the probe is
# killed at the deadline (1.5 s scrape timeout less 0.5 s).
python3 -c 'import socket, sys, time
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(8)
print(s.getsockname()[1], flush=True); time.sleep(60)' >"$T/mute.port" &
MUTE_PID=$!
track_pid "$MUTE_PID"
wait_for 20 test -s "$T/mute.port" || fail "a mute server (python3) starts"
http "$U/probe?target=127.0.0.1:$(cat "$T/mute.port")&test=tcp_lat&time=0.2" \
	-H 'X-Prometheus-Scrape-Timeout-Seconds: 1.5'
if [ "$CODE" = 200 ] && grep -q '^qperf_probe_success{error="timeout: the test did not end within 1 s"} 0$' "$T/body"; then
	pass "a server that never answers: the probe is cut at the scrape timeout less 0.5 s"
else
	fail "a server that never answers: the probe is cut at the scrape timeout less 0.5 s" "code $CODE" "$BODY"
fi
kill "$MUTE_PID" 2>/dev/null

section bad_requests
# bad QUERY WHAT NAME: a 400 whose body and log line say WHAT.
bad() {
	http "$U/probe?$1" "${@:4}"
	if [ "$CODE" = 400 ] && grep -qF -- "$2" "$T/body" &&
		grep -qF -- "bad probe: $2" "$EXP_LOG"; then
		pass "$3"
	else
		fail "$3" "code $CODE" "$BODY" "$(tail -n 3 "$EXP_LOG")"
	fi
}
bad "target=127.0.0.1:$QP&test=udp_bw" 'test=udp_bw: not allowed' "a test not on the allow-list: 400 and a log line"
bad "target=127.0.0.1:$QP&test=tcp_lat&sock_buf_size=1M" 'sock_buf_size: not allowed' "an option not on the allow-list: 400"
bad "target=127.0.0.1:$QP&test=nosuch" 'test=nosuch: no such test' "an unknown test: 400"
bad "test=tcp_lat" 'missing target' "no target: 400"
bad "target=-lp&test=tcp_lat" 'target=-lp: bad target' "a target that looks like an option: 400"
bad "target=127.0.0.1:99999&test=tcp_lat" 'target=127.0.0.1:99999: bad target' "a target with a bad port: 400"
bad "target=127.0.0.1:$QP&test=tcp_lat&test=tcp_bw" 'test: given twice' "a test given twice: 400"
bad "target=127.0.0.1:$QP&test=tcp_lat&time" 'time: no value' "an option without a value: 400"
bad "target=127.0.0.1:$QP&test=tcp_lat&msg_size=%3Bls" 'msg_size=;ls: bad value' "a value outside the alphabet: 400"
bad "target=127.0.0.1:$QP&test=tcp_lat&msg_size=-3" '--msg_size: -3: must not be negative' "a value the option refuses (the test's own check): 400"
bad "target=127.0.0.1:$QP&test=tcp_lat&time=5" 'time: 5 s does not fit' "a time beyond the scrape timeout: 400" \
	-H 'X-Prometheus-Scrape-Timeout-Seconds: 3'
bad "target=127.0.0.1:$QP&test=tcp_lat" 'X-Prometheus-Scrape-Timeout-Seconds: abc: bad value' "a bad scrape timeout header: 400" \
	-H 'X-Prometheus-Scrape-Timeout-Seconds: abc'

section concurrency
# 100 scrapes at once with 4 slots: each 200 or 503, as /metrics counts.
http "$U/metrics"
p0=$(metric qperf_exporter_probes_total)
b0=$(metric 'qperf_exporter_probes_rejected_total{reason="busy"}')
for i in $(seq 100); do
	curl -s -m 60 -o /dev/null -w '%{http_code}\n' \
		"$U/probe?target=127.0.0.1:$QP&test=tcp_lat&time=0.2" >"$T/c.$i" &
done
answered() { [ "$(cat "$T"/c.* 2>/dev/null | wc -l)" -ge 100 ]; }
wait_for 60 answered
n200=$(cat "$T"/c.* | grep -c '^200$')
n503=$(cat "$T"/c.* | grep -c '^503$')
http "$U/metrics"
p1=$(metric qperf_exporter_probes_total)
b1=$(metric 'qperf_exporter_probes_rejected_total{reason="busy"}')
if [ $((n200 + n503)) = 100 ] && [ "$n200" -ge 1 ] &&
	[ $((p1 - p0)) = "$n200" ] && [ $((b1 - b0)) = "$n503" ] &&
	[ "$(metric qperf_exporter_probes_in_flight)" = 0 ]; then
	pass "100 scrapes at once: $n200 x 200, $n503 x 503, as /metrics counts"
else
	fail "100 scrapes at once: each 200 or 503, as /metrics counts" \
		"200: $n200, 503: $n503, probes $p0 -> $p1, busy $b0 -> $b1" "$(sort "$T"/c.* | uniq -c)"
fi
http "$U/probe?target=127.0.0.1:$QP&test=tcp_lat&time=0.2"
if [ "$CODE" = 200 ] && [ "$(metric qperf_probe_success)" = 1 ]; then
	pass "after them a probe still succeeds"
else
	fail "after them a probe still succeeds" "code $CODE" "$BODY"
fi

section slow_client
wait_for 60 test -s "$T/slow.out"
http "$U/metrics"
if grep -q '^cut after [0-9]* of [0-9]* bytes$' "$T/slow.out" &&
	positive "$(metric qperf_exporter_slow_requests_total)"; then
	pass "a client sending a byte a second is cut ($(cat "$T/slow.out")), counted in /metrics"
else
	fail "a client sending a byte a second is cut" "$(cat "$T/slow.out")" "$BODY"
fi

section prometheus
PP=$(free_port)
mkdir -p "$T/tsdb"
cat >"$T/prometheus.yml" <<EOF
global:
  scrape_interval: 1s
  scrape_timeout: 1s
scrape_configs:
  - job_name: qperf_exporter
    static_configs:
      - targets: ['127.0.0.1:$EP']
EOF
for test in tcp_lat tcp_bw; do
	cat >>"$T/prometheus.yml" <<EOF
  - job_name: qperf_$test
    scrape_timeout: 2s
    scrape_interval: 2s
    metrics_path: /probe
    params:
      test: [$test]
      time: ['0.2']
    static_configs:
      - targets: ['127.0.0.1:$QP']
    relabel_configs:
      - source_labels: [__address__]
        target_label: __param_target
      - source_labels: [__param_target]
        target_label: instance
      - target_label: __address__
        replacement: 127.0.0.1:$EP
EOF
done
run promtool check config "$T/prometheus.yml"
expect "promtool check config accepts the probe job" 0 'SUCCESS'
prometheus --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/tsdb" \
	--web.listen-address="127.0.0.1:$PP" --log.level=warn \
	>"$T/prometheus.log" 2>&1 </dev/null &
PROM_PID=$!
track_pid "$PROM_PID"

# query EXPR: the first value of an instant query, or nothing.
query() {
	curl -s -m 5 "http://127.0.0.1:$PP/api/v1/query" --data-urlencode "query=$1" |
		python3 -c 'import json, sys
d = json.load(sys.stdin)["data"]["result"]
print(d[0]["value"][1] if d else "")' 2>/dev/null
}
has_value() { [ -n "$(query "$1")" ]; }
# (over the last minutes: on a loaded machine one probe may be cut at its
# deadline, and a series its page lacks goes stale at once)
if wait_for 60 has_value 'max_over_time(qperf_probe_success{job="qperf_tcp_lat"}[5m]) == 1 and on() max_over_time(qperf_probe_success{job="qperf_tcp_bw"}[5m]) == 1'; then
	pass "Prometheus scrapes both probe jobs with success 1"
else
	fail "Prometheus scrapes both probe jobs with success 1" \
		"tcp_lat: $(query 'qperf_probe_success{job="qperf_tcp_lat"}')" \
		"tcp_bw: $(query 'qperf_probe_success{job="qperf_tcp_bw"}')" \
		"$(tail -n 20 "$T/prometheus.log")"
fi
v=$(query "max_over_time(qperf_latency_seconds{job=\"qperf_tcp_lat\",instance=\"127.0.0.1:$QP\"}[5m])")
q=$(query 'max_over_time(qperf_latency_distribution_seconds{job="qperf_tcp_lat",quantile="0.99"}[5m])')
bw=$(query "max_over_time(qperf_bw_bytes_per_second{job=\"qperf_tcp_bw\",instance=\"127.0.0.1:$QP\"}[5m])")
if positive "$v" && positive "$q" && positive "$bw"; then
	pass "Prometheus' API: latency $v s, p99 $q s, bandwidth $bw B/s (target relabelled into instance)"
else
	fail "Prometheus' API: latency, p99 and bandwidth above 0" "latency '$v' p99 '$q' bw '$bw'"
fi
up=$(query 'max_over_time(up{job="qperf_exporter"}[5m])')
n=$(query 'max_over_time(qperf_exporter_probes_total[5m])')
if [ "$up" = 1 ] && positive "$n"; then
	pass "Prometheus scrapes the exporter's own /metrics (probes_total $n)"
else
	fail "Prometheus scrapes the exporter's own /metrics" "up '$up' probes '$n'"
fi

section stop
kill -TERM "$EXP_PID"
if wait_for 10 pid_gone "$EXP_PID"; then
	wait "$EXP_PID"
	rc=$?
	if [ "$rc" = 0 ]; then
		pass "SIGTERM stops the exporter with status 0"
	else
		fail "SIGTERM stops the exporter with status 0" "status $rc" "$(cat "$EXP_LOG")"
	fi
else
	fail "SIGTERM stops the exporter with status 0" "still running"
fi
if grep -qE 'AddressSanitizer|runtime error:|Segmentation fault' "$EXP_LOG"; then
	fail "exporter log: no crash reports" "$(cat "$EXP_LOG")"
else
	pass "exporter log: no crash reports"
fi
finish
