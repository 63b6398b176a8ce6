// A member kind that exists only in the tests: a ConfigMap per container holding its
// settings (here the image it runs), named `<workload>-settings`, owned by the Deployment.
// It is one descriptor (this file) and one table row (`SETTINGS_TABLE`): the proof that a
// new object of a workload goes through create, adopt, drift, cleanup, remove, status and
// statuses$ by its rules alone. Its status field is `settings`.
import { allow } from '../../../src/kube/permission.js';
import type { V1ConfigMap } from '../../../src/kube/objects.js';
import type { CacheRequest, MemberRules, MemberStatusRules } from '../../../src/members/member.js';
import { MEMBERS } from '../../../src/members/set.js';
import { snapshotsOf } from '../../../src/members/snapshots.js';
import type { WorkloadStatusValue } from '../../../src/rollout/workload-status.js';

const SETTINGS_BY_NAME = {
  routingKeyName: 'name',
  routingKey: (map: V1ConfigMap) => map.metadata?.name,
} as const satisfies CacheRequest<'configmaps'>;

/** What the status says of the settings: whether they are there, and the image they name. */
export interface SettingsStatus {
  readonly name: string;
  readonly present: boolean;
  readonly image: string | null;
}

export const SETTINGS_MEMBER: MemberRules<'configmaps'> = {
  kind: 'configmaps',
  build: (spec, { namespace, labels }) => ({
    apiVersion: 'v1',
    kind: 'ConfigMap',
    metadata: { name: `${spec.hostname}-settings`, namespace, labels: { ...labels } },
    data: { image: spec.image },
  }),
  nameIn: (workload) => `${workload}-settings`,
  drift: (desired, live) =>
    desired.data?.image === live.data?.image
      ? []
      : [{ field: 'image', live: live.data?.image ?? '(none)', desired: desired.data?.image ?? '' }],
  propagationPolicy: 'Background',
  ownedBy: 'deployments',
  permissions: { create: allow('configmaps', ['create', 'get', 'list', 'watch']), lifecycle: allow('configmaps', ['delete']) },
  cache: SETTINGS_BY_NAME,
  snapshots: (registry, client, namespace, name, instance) =>
    snapshotsOf({ registry, client, namespace, instance }, 'configmaps', SETTINGS_BY_NAME, name),
  status: {
    watches: [{ kind: 'configmaps', cache: SETTINGS_BY_NAME, find: { by: 'name' } }],
    view: ([maps]) => maps?.[0] as V1ConfigMap | undefined,
    fields: (map, name) => {
      const settings: SettingsStatus = { name, present: map !== undefined, image: map?.data?.image ?? null };
      // A field the library's status type does not know: a test kind's own.
      return { settings } as Partial<WorkloadStatusValue>;
    },
    sameFields: (a, b) => JSON.stringify(settingsOf(a)) === JSON.stringify(settingsOf(b)),
  } satisfies MemberStatusRules<V1ConfigMap>,
};

/** The library's members and the settings, last. */
export const SETTINGS_TABLE = MEMBERS.with(SETTINGS_MEMBER);

/** The `settings` field of a status, if it has one. */
export function settingsOf(status: WorkloadStatusValue): SettingsStatus | undefined {
  return (status as WorkloadStatusValue & { readonly settings?: SettingsStatus }).settings;
}
