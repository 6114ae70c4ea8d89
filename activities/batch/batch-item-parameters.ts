export interface BatchItemParameters {
  batchId: string;
  index: number;
}
