declare module 'parse-prometheus-text-format' {
  interface PromSample {
    value?: string;
    labels?: Record<string, string>;
    buckets?: Record<string, string>;
    quantiles?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  interface PromFamily {
    name: string;
    help: string;
    type: string;
    metrics: PromSample[];
  }
  function parsePrometheusTextFormat(text: string): PromFamily[];
  export default parsePrometheusTextFormat;
}
