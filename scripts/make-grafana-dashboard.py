#!/usr/bin/env python3
"""Writes deploy/grafana/ferry-dashboard.json, the Grafana dashboard built on Ferry's /metrics.

Run from the repository's root after changing a panel here: python3 scripts/make-grafana-dashboard.py
The JSON is committed so that operators import it without running anything; the test suite checks that every
series it queries is one the server exposes.
"""
import json
import os

DATASOURCE = {"type": "prometheus", "uid": "${DS_PROMETHEUS}"}
SELECTOR = 'instance=~"$instance"'

panels = []
next_id = 1
y = 0


def row(title):
    global next_id, y
    panels.append({"type": "row", "title": title, "id": next_id, "collapsed": False,
                   "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
    next_id += 1
    y += 1


def panel(title, targets, unit="short", x=0, w=8, h=8, kind="timeseries", description="", stack=False, thresholds=None):
    global next_id
    defaults = {"unit": unit}
    if thresholds:
        defaults["thresholds"] = {"mode": "absolute", "steps": thresholds}
    if kind == "timeseries":
        defaults["custom"] = {"drawStyle": "line", "lineWidth": 1, "fillOpacity": 20 if stack else 0,
                              "stacking": {"mode": "normal" if stack else "none", "group": "A"}, "showPoints": "never"}
    panels.append({
        "type": kind, "title": title, "description": description, "id": next_id, "datasource": DATASOURCE,
        "gridPos": {"h": h, "w": w, "x": x, "y": y},
        "fieldConfig": {"defaults": defaults, "overrides": []},
        "options": {"legend": {"displayMode": "list", "placement": "bottom", "showLegend": True},
                    "tooltip": {"mode": "multi", "sort": "desc"}} if kind == "timeseries" else {"reduceOptions": {"calcs": ["lastNotNull"]}},
        "targets": [{"datasource": DATASOURCE, "expr": expr, "legendFormat": legend, "refId": chr(65 + i)}
                    for i, (expr, legend) in enumerate(targets)],
    })
    next_id += 1


def end_row(h=8):
    global y
    y += h


def quantile(q, metric, by=""):
    group = f"le{', ' + by if by else ''}"
    return f"histogram_quantile({q}, sum by ({group}) (rate({metric}_bucket{{{SELECTOR}}}[$__rate_interval])))"


row("Traffic")
panel("Requests by route group", [(f'sum by (group) (rate(ferry_http_requests_total{{{SELECTOR}}}[$__rate_interval]))', "{{group}}")],
      unit="reqps", stack=True, description="Every answer, the edge's fast path included.")
panel("Share of answers that are 5xx", [(
    f'sum(rate(ferry_http_requests_total{{code="5xx",{SELECTOR}}}[$__rate_interval])) / sum(rate(ferry_http_requests_total{{{SELECTOR}}}[$__rate_interval]))',
    "5xx")], unit="percentunit", x=8, thresholds=[{"color": "green", "value": None}, {"color": "red", "value": 0.01}])
panel("Latency p99 by route group", [(quantile(0.99, "ferry_http_request_duration_seconds", "group"), "{{group}} p99")], unit="s", x=16)
end_row()
panel("Edge answers by kind", [(f'sum by (kind) (rate(ferry_edge_answers_total{{{SELECTOR}}}[$__rate_interval]))', "{{kind}}")],
      unit="reqps", stack=True, description="Redirects, previews for bots, interstitials, and the status pages.")
panel("Link cache hit ratio", [(
    f'sum(rate(ferry_link_cache_hits_total{{{SELECTOR}}}[$__rate_interval])) / (sum(rate(ferry_link_cache_hits_total{{{SELECTOR}}}[$__rate_interval])) + sum(rate(ferry_link_cache_misses_total{{{SELECTOR}}}[$__rate_interval])))',
    "hits")], unit="percentunit", x=8)
panel("Requests refused by rate limits", [(f'sum by (rule) (rate(ferry_rate_limited_total{{{SELECTOR}}}[$__rate_interval]))', "{{rule}}")],
      unit="reqps", x=16)
end_row()

row("Clicks")
panel("Clicks recorded and dropped", [
    (f'sum(rate(ferry_clicks_recorded_total{{{SELECTOR}}}[$__rate_interval]))', "recorded"),
    (f'sum(rate(ferry_clicks_dropped_total{{{SELECTOR}}}[$__rate_interval]))', "dropped"),
], unit="ops")
panel("Clicks waiting to be written", [(f'ferry_clicks_pending{{{SELECTOR}}}', "{{instance}}")], x=8)
panel("Click write lag p50 / p99", [(quantile(0.5, "ferry_click_write_lag_seconds"), "p50"), (quantile(0.99, "ferry_click_write_lag_seconds"), "p99")],
      unit="s", x=16, description="How long the oldest click of each batch waited between its answer and its write.")
end_row()
panel("Click journal backlog", [(f'ferry_click_journal_backlog_bytes{{{SELECTOR}}}', "{{instance}}")], unit="bytes")
panel("Click batch write time p99", [(quantile(0.99, "ferry_click_batch_write_duration_seconds"), "p99")], unit="s", x=8)
panel("Click journal full", [(f'max(ferry_click_journal_full{{{SELECTOR}}})', "full")], kind="stat", x=16,
      thresholds=[{"color": "green", "value": None}, {"color": "red", "value": 1}])
end_row()

row("Attribution")
panel("Installs attributed by outcome and tier",
      [(f'sum by (outcome, tier) (rate(ferry_attribution_matches_total{{{SELECTOR}}}[$__rate_interval]))', "{{outcome}} {{tier}}")],
      unit="ops", stack=True)
panel("Confidence of probabilistic matches", [(
    f'sum by (le) (increase(ferry_attribution_match_confidence_bucket{{{SELECTOR}}}[$__range]))', "{{le}}")], kind="bargauge", x=8)
panel("Match time p99", [(quantile(0.99, "ferry_attribution_match_duration_seconds"), "p99")], unit="s", x=16)
end_row()

row("Webhooks")
panel("Delivery attempts by result",
      [(f'sum by (result) (rate(ferry_webhook_deliveries_total{{{SELECTOR}}}[$__rate_interval]))', "{{result}}")], unit="ops", stack=True)
panel("Deliveries waiting", [(f'max(ferry_webhook_queue_depth{{{SELECTOR}}})', "waiting"),
                             (f'max(ferry_webhook_queue_oldest_age_seconds{{{SELECTOR}}})', "oldest (s)")], x=8,
      description="The queue is shared by every node: each reports the same figures.")
panel("Event age at delivery p99 / delivery time p99", [
    (quantile(0.99, "ferry_webhook_queue_age_seconds"), "age p99"), (quantile(0.99, "ferry_webhook_delivery_duration_seconds"), "attempt p99"),
], unit="s", x=16)
end_row()

row("Database")
panel("Database up", [(f'min by (system) (ferry_db_up{{{SELECTOR}}})', "{{system}}")], kind="stat",
      thresholds=[{"color": "red", "value": None}, {"color": "green", "value": 1}])
panel("Operation time p99", [(quantile(0.99, "ferry_db_operation_duration_seconds", "operation"), "{{operation}} p99")], unit="s", x=8)
panel("Operations under way against the pool", [
    (f'sum by (instance) (ferry_db_operations_in_flight{{{SELECTOR}}})', "in flight {{instance}}"),
    (f'max(ferry_db_connections_max{{{SELECTOR}}})', "pool size"),
    (f'sum(rate(ferry_db_operation_errors_total{{{SELECTOR}}}[$__rate_interval]))', "errors/s"),
], x=16)
end_row()

row("Process")
panel("Resident memory", [(f'process_resident_memory_bytes{{{SELECTOR}}}', "{{instance}}")], unit="bytes")
panel("Processor", [(f'rate(process_cpu_seconds_total{{{SELECTOR}}}[$__rate_interval])', "{{instance}}")], unit="percentunit", x=8,
      description="Processor seconds per second: 1 is one core.")
panel("Open files", [(f'process_open_fds{{{SELECTOR}}}', "open {{instance}}"), (f'process_max_fds{{{SELECTOR}}}', "limit {{instance}}")], x=16)
end_row()

dashboard = {
    "__inputs": [{"name": "DS_PROMETHEUS", "label": "Prometheus", "type": "datasource", "pluginId": "prometheus", "pluginName": "Prometheus"}],
    "__requires": [{"type": "grafana", "id": "grafana", "name": "Grafana", "version": "10.0.0"},
                   {"type": "datasource", "id": "prometheus", "name": "Prometheus", "version": "1.0.0"}],
    "title": "Ferry", "uid": "ferry-overview", "description": "Ferry's edge, clicks, attribution, webhooks, database and process (docs/operations.md).",
    "tags": ["ferry"], "timezone": "browser", "schemaVersion": 39, "version": 1, "editable": True, "refresh": "30s",
    "time": {"from": "now-6h", "to": "now"},
    "templating": {"list": [{
        "name": "instance", "label": "Node", "type": "query", "datasource": DATASOURCE, "query": "label_values(ferry_http_requests_total, instance)",
        "refresh": 2, "multi": True, "includeAll": True, "allValue": ".*", "current": {"text": "All", "value": "$__all"},
    }]},
    "panels": panels,
}

path = os.path.join(os.path.dirname(__file__), "..", "deploy", "grafana", "ferry-dashboard.json")
os.makedirs(os.path.dirname(path), exist_ok=True)
with open(path, "w") as out:
    json.dump(dashboard, out, indent=2)
    out.write("\n")
