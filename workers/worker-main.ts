import { exitOnError } from './exit-on-error';
import { runProcess } from './run-process';

/** A worker process (`npm run worker`): the pool, the quota, the drain; no HTTP API. */
runProcess(['worker']).catch(exitOnError);
