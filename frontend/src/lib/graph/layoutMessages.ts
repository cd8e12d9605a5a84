/** Typed messages between the page and layout.worker.ts. */
import type { Layout } from './elk';
import type { GraphModel } from './model';

export interface LayoutRequest {
  id: number;
  graph: GraphModel;
}
export type LayoutResponse =
  | { id: number; ok: true; layout: Layout; ms: number }
  | { id: number; ok: false; error: string; ms: number };
/** Sent once by the worker when its warm-up layouts are done, with how long they took. */
export interface WarmedMessage {
  warmed: number;
}
