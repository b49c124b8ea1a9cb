/**
 * `tollgate/otel`: OpenTelemetry tracing for tollgate's runs, with the GenAI semantic
 * conventions. Needs `@opentelemetry/api` (an optional peer).
 */
export { ERROR_TYPE, GEN_AI, OPERATION, TOLLGATE } from "./attributes.js";
export { otelListener } from "./listener.js";
export type { OtelListenerOptions } from "./options.js";
