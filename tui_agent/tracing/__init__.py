"""OpenTelemetry traces of the task tree, opt-in (`[tracing]`, `--otel`; docs/tracing.md).

`telemetry` is what the turns tell (each model call and each tool call as it ends), light and always there;
`start` builds the exporter and the tracer when tracing is on, and only then imports OpenTelemetry (`spans`,
`exporters`). Nothing here imports the SDK at import time.
"""
