import { runCli } from './run';

// A command that went well ends when its work does (a watch keeps going); a failure exits now.
void runCli(process.argv).then((code) => {
  if (code !== 0) process.exit(code);
});
