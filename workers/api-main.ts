import { exitOnError } from './exit-on-error';
import { runProcess } from './run-process';

/** An API process (`npm run api`): the HTTP API on API_PORT; no workers, no signing keys. */
runProcess(['api']).catch(exitOnError);
