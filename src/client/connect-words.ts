// A connection's failure in words ("connect ECONNREFUSED 127.0.0.1:8000" tells a user the code twice and what
// it means never): the probe's error and a request's record say it alike.
const WORDS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'nothing is listening there (connection refused)',
  ECONNRESET: 'the connection was reset before an answer',
  EHOSTUNREACH: 'the host cannot be reached',
  ENETUNREACH: 'the network cannot be reached',
  ETIMEDOUT: 'the connection timed out',
  EPIPE: 'the connection was closed while sending',
};

export const connectWords = (code: string | undefined): string | undefined =>
  code === undefined ? undefined : WORDS[code];
