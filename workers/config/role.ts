/** What a process runs: the Temporal workers, the HTTP API, or both (`npm start`). */
export type Role = 'worker' | 'api';
