// A stand-in for the informers' caches a StatusBoard reads (StatusBoardOptions.cached), for
// tests that feed the board informer notices by hand: each key holds what the last notice
// of it said, as an informer's cache does when it notifies.
import type { InformerNotice } from '../../src/informers/shared-informer.js';
import type { V1Pod } from '../../src/kube/objects.js';
import { MEMBERS, type MemberKind, type MemberTable } from '../../src/members/set.js';
import { statusMembers, type StatusMember } from '../../src/workload/reads/member-status.js';
import type { CachedObjects, StatusBoard } from '../../src/workload/reads/status-board.js';

type Noter<T> = (notice: InformerNotice<T>) => InformerNotice<T>;

export interface NoticedCaches {
  /** The table's members with a part in the status: StatusBoardOptions.members. */
  readonly members: readonly StatusMember[];
  readonly cached: CachedObjects;
  /** Notes a Pod notice in its cache and hands it on, for the board to hear of next. */
  readonly notePods: Noter<V1Pod>;
  /** Notes a notice of watch `watch` of the member of `kind`, and hands it to the board. */
  readonly feed: (board: StatusBoard, kind: MemberKind, watch: number, notice: InformerNotice<unknown>) => void;
  /** Every member's watches have listed (nothing, unless fed before). */
  readonly syncMembers: (board: StatusBoard, except?: MemberKind) => void;
}

function cache<T>(): { readonly read: (key: string) => readonly T[]; readonly note: Noter<T> } {
  const byKey = new Map<string, readonly T[]>();
  return {
    read: (key) => byKey.get(key) ?? [],
    note: (notice) => {
      if (notice.type === 'changed') byKey.set(notice.key, notice.objects);
      return notice;
    },
  };
}

export function noticedCaches(table: MemberTable = MEMBERS): NoticedCaches {
  const members = statusMembers(table);
  const pods = cache<V1Pod>();
  const watches = members.map((member) => member.rules.watches.map(() => cache<unknown>()));
  const indexOf = (kind: MemberKind): number => {
    const index = members.findIndex((member) => member.kind === kind);
    if (index < 0) throw new Error(`no status member ${kind}`);
    return index;
  };
  const feed = (board: StatusBoard, kind: MemberKind, watch: number, notice: InformerNotice<unknown>): void => {
    const member = indexOf(kind);
    board.onMember(member, watch, watches[member]![watch]!.note(notice));
  };
  return {
    members,
    cached: { pods: pods.read, held: (member, watch, key) => watches[member]![watch]!.read(key) },
    notePods: pods.note,
    feed,
    syncMembers: (board, except) => {
      for (const member of members) {
        if (member.kind === except) continue;
        member.rules.watches.forEach((_, watch) => feed(board, member.kind, watch, { type: 'synced' }));
      }
    },
  };
}
