/**
 * Why a shared program could not be opened, in words for the person who clicked the link: a
 * share id the store does not know, a `#code=` link damaged in copying, a store that cannot be
 * reached. The page says what happened and offers the playground without the shared program.
 */

export type ShareProblem = 'not_found' | 'garbled' | 'unreachable' | 'server';

export class ShareError extends Error {
  constructor(
    readonly problem: ShareProblem,
    detail: string,
  ) {
    super(detail);
    this.name = 'ShareError';
  }
}

export interface ShareFailure {
  problem: ShareProblem;
  title: string;
  detail: string;
}

const TEXT: Record<ShareProblem, [string, string]> = {
  not_found: [
    'This share link does not exist',
    'No shared program has this id. The link may be mistyped or cut short, or it was made on another server.',
  ],
  garbled: [
    'This link is damaged',
    'The program in this link cannot be read: part of it was probably lost when the link was copied. Ask for the link again.',
  ],
  unreachable: [
    'The shared program could not be fetched',
    'The server did not answer. Check your connection and reload the page to try again.',
  ],
  server: [
    'The shared program could not be loaded',
    'The server had a problem reading it. Reloading the page may help.',
  ],
};

/** What to tell the person about a failure to open a link (any thrown value). */
export function describeShareFailure(err: unknown): ShareFailure {
  const problem: ShareProblem = err instanceof ShareError ? err.problem : 'garbled';
  const [title, detail] = TEXT[problem];
  return { problem, title, detail };
}
