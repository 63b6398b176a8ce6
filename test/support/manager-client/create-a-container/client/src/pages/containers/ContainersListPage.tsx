import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useParams } from 'react-router';
import { useToast } from '@mieweb/ui';
import { RowActions } from '@/components/containers/RowActions';
import { api, ApiError } from '@/lib/api';
import { keys, queries } from '@/lib/queries';

/** The site's containers, one row each with its actions. */
export function ContainersListPage() {
  const siteId = useParams<{ siteId: string }>().siteId ?? '';
  const client = useQueryClient();
  const toast = useToast();
  const list = useQuery({ queryKey: keys.containers(siteId), queryFn: () => queries.listContainers(siteId) });
  const removal = useMutation({
    mutationFn: (id: number) => api.delete<unknown>(`/api/v1/sites/${siteId}/containers/${id}`),
    onSuccess: () => client.invalidateQueries({ queryKey: keys.containers(siteId) }),
    onError: (err: ApiError) => toast.error(err.message),
  });

  return (
    <ul className="grid gap-2 p-6">
      {(list.data ?? []).map((container) => (
        <li key={container.id} className="flex items-center gap-2">
          <span className="grow">
            {container.hostname} ({container.status})
          </span>
          <RowActions
            c={container}
            siteId={siteId}
            onDelete={(id) => removal.mutate(id)}
            deleting={removal.isPending}
            canShare={false}
            onShare={() => undefined}
          />
        </li>
      ))}
    </ul>
  );
}
