/** The shape of one metric of the server-metrics export, shared by its JSON and CSV writers. */

import type { MetricType } from "./prometheus.ts";

/** One exported series: where it came from, its labels and its statistics. */
export interface ExportSeries {
  endpoint_url: string;
  labels: Record<string, string> | null;
  stats: Record<string, number>;
  buckets?: Record<string, number>;
}

/** One exported metric: its type, description and series. */
export interface ExportMetric {
  type: MetricType;
  description: string;
  unit: string | null;
  series: ExportSeries[];
}
