// Errors of input: a library option, the command line, a spec field.
import { escapeControlCharacters } from '../text.js';
import { KubeProvisionerError } from './base.js';

/** A caller's option is outside its rule (a library option, not a spec field). */
export class InvalidOptionError extends KubeProvisionerError {
  override readonly name = 'InvalidOptionError';
  /** The option as the caller wrote it, e.g. `progressDeadlineSeconds`. */
  readonly option: string;
  constructor(option: string, message: string) {
    super(message);
    this.option = option;
  }
}

/** The command line is wrong: an unknown flag, a missing value (the CLI exits 2). */
export class UsageError extends KubeProvisionerError {
  override readonly name = 'UsageError';
}

/** An entrypoint line cannot be split: an unterminated quote or a trailing backslash. */
export class ShellWordsError extends KubeProvisionerError {
  override readonly name = 'ShellWordsError';
  /** Zero-based index in the line where the unfinished construct starts. */
  readonly position: number;
  constructor(problem: string, position: number) {
    super(`${problem} at character ${position + 1}`);
    this.position = position;
  }
}

export interface SpecIssue {
  /** Dotted field path, e.g. `env.MY_VAR` or `image`. */
  readonly path: string;
  readonly message: string;
  /**
   * On the command line: where the user typed the value, e.g. `--memory-mb`,
   * `--env MY_VAR` or `--spec-file field memoryMb`. Messages name this instead of the path.
   */
  readonly flag?: string;
}

/** An invalid spec lists this many problems; the rest are counted, so a huge bad input makes a small error. */
export const MAX_LISTED_ISSUES = 50;

export class InvalidSpecError extends KubeProvisionerError {
  override readonly name = 'InvalidSpecError';
  /** The first MAX_LISTED_ISSUES problems, each with its field. */
  readonly issues: readonly SpecIssue[];
  /** How many more problems there were. */
  readonly omittedIssues: number;
  constructor(issues: readonly SpecIssue[], omitted = 0) {
    const listed = issues.slice(0, MAX_LISTED_ISSUES);
    const more = omitted + issues.length - listed.length;
    super(
      `Invalid workload spec: ${listed.map((issue) => `${issue.flag ?? (issue.path || '(root)')}: ${issue.message}`).join('; ')}` +
        (more > 0 ? `; and ${more} more problem${more === 1 ? '' : 's'}` : ''),
    );
    this.omittedIssues = more;
    this.issues = listed.map((issue) => ({
      ...issue,
      path: escapeControlCharacters(issue.path),
      ...(issue.flag !== undefined ? { flag: escapeControlCharacters(issue.flag) } : {}),
    }));
  }
}
