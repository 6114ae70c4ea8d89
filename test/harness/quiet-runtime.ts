import { installRuntime } from '../../workers/runtime';

installRuntime((process.env.TEST_LOG_LEVEL as never) ?? 'ERROR');
