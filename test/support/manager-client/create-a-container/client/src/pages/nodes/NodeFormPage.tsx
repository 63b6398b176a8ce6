import { useEffect } from 'react';
import { useNavigate, useParams } from 'react-router';
import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useForm } from 'react-hook-form';
import { zodResolver } from '@hookform/resolvers/zod';
import { z } from 'zod';
import { Alert, AlertDescription, Button, Input, Spinner, Switch, useToast } from '@mieweb/ui';
import { Server } from 'lucide-react';
import { api, ApiError } from '@/lib/api';
import { keys, queries } from '@/lib/queries';
import { FormPageLayout } from '@/components/FormPageLayout';
import type { Node } from '@/lib/types';

const schema = z.object({
  name: z.string().min(1, 'Required'),
  nodeType: z.enum(['proxmox', 'dummy', 'docker']).default('proxmox'),
  ipv4Address: z.string().optional(),
  apiUrl: z.string().optional(),
  tokenId: z.string().optional(),
  secret: z.string().optional(),
  tlsVerify: z.boolean().optional(),
  imageStorage: z.string().min(1, 'Required'),
  volumeStorage: z.string().min(1, 'Required'),
  networkBridge: z.string().min(1, 'Required'),
  nvidiaAvailable: z.boolean().optional(),
});
type FormData = z.infer<typeof schema>;

/** Creates a node, or edits one (`:id`); an empty secret on edit keeps the stored one. */
export function NodeFormPage() {
  const { siteId = '', id } = useParams<{ siteId: string; id?: string }>();
  const isEdit = id !== undefined;
  const navigate = useNavigate();
  const client = useQueryClient();
  const toast = useToast();
  const listPath = `/sites/${siteId}/nodes`;

  const { data: node, isLoading } = useQuery({
    queryKey: keys.node(siteId, id ?? ''),
    queryFn: () => queries.getNode(siteId, id ?? ''),
    enabled: isEdit,
  });

  const { register, handleSubmit, reset, watch, setValue, formState } = useForm<FormData>({
    resolver: zodResolver(schema),
    defaultValues: { name: '', nodeType: 'proxmox', tlsVerify: true, nvidiaAvailable: false },
  });
  const nodeType = watch('nodeType');
  const tlsVerify = watch('tlsVerify');
  const nvidiaAvailable = watch('nvidiaAvailable');

  useEffect(() => {
    if (node) {
      reset({
        name: node.name,
        nodeType: node.nodeType,
        ipv4Address: node.ipv4Address ?? '',
        apiUrl: node.apiUrl ?? '',
        tokenId: node.tokenId ?? '',
        secret: '',
        tlsVerify: node.tlsVerify ?? true,
        imageStorage: node.imageStorage,
        volumeStorage: node.volumeStorage,
        networkBridge: node.networkBridge,
        nvidiaAvailable: node.nvidiaAvailable,
      });
    }
  }, [node, reset]);

  const mutation = useMutation({
    mutationFn: (values: FormData) => {
      const payload = { ...values };
      if (isEdit && !values.secret) delete payload.secret;
      return isEdit
        ? api.put<Node>(`/api/v1/sites/${siteId}/nodes/${id}`, payload)
        : api.post<Node>(`/api/v1/sites/${siteId}/nodes`, payload);
    },
    onSuccess: async () => {
      await client.invalidateQueries({ queryKey: keys.nodes(siteId) });
      toast.success(`Node ${isEdit ? 'saved' : 'added'}`);
      await navigate(listPath);
    },
    onError: (err: ApiError) => toast.error(err.message),
  });

  if (isEdit && isLoading) return <Spinner size="lg" />;

  return (
    <form noValidate onSubmit={handleSubmit((values) => mutation.mutate(values))}>
      <FormPageLayout
        icon={<Server className="size-6" />}
        title={isEdit ? `Node ${node?.name ?? ''}` : 'Add a node'}
        subtitle="How Manager reaches the node, and where its containers keep their data."
        backTo={{ label: 'All nodes', to: listPath }}
        maxWidth="3xl"
        actions={
          <Button type="submit" variant="primary" isLoading={mutation.isPending}>
            Save
          </Button>
        }
      >
        <Input
          label="Name"
          required
          error={formState.errors.name?.message}
          hasError={formState.errors.name !== undefined}
          {...register('name')}
        />
        <div className="grid gap-1">
          <label htmlFor="node-type">Type</label>
          <select id="node-type" {...register('nodeType')}>
            <option value="proxmox">Proxmox</option>
            <option value="docker">Docker</option>
            <option value="dummy">Dummy</option>
          </select>
        </div>
        <Input
          label="IPv4 address"
          {...register('ipv4Address')}
        />
        <Input
          label={nodeType === 'docker' ? 'Docker host' : 'Proxmox API URL'}
          placeholder={
            nodeType === 'docker'
              ? 'unix:///var/run/docker.sock'
              : 'https://pve.example.com:8006'
          }
          error={formState.errors.apiUrl?.message}
          hasError={!!formState.errors.apiUrl}
          {...register('apiUrl')}
        />
        {nodeType === 'proxmox' && (
          <>
            <Input label="Token ID" {...register('tokenId')} />
            <Input
              label="Token secret"
              type="password"
              helperText={node?.hasSecret ? 'Empty: the stored secret stays' : undefined}
              {...register('secret')}
            />
            <Switch
              label="Check the TLS certificate"
              checked={tlsVerify ?? true}
              onCheckedChange={(checked) => setValue('tlsVerify', checked)}
            />
          </>
        )}
        <div className="grid gap-4 sm:grid-cols-3">
          <Input label="Image storage" required {...register('imageStorage')} />
          <Input label="Volume storage" required {...register('volumeStorage')} />
          <Input label="Network bridge" required {...register('networkBridge')} />
        </div>
        <Switch
          label="NVIDIA available"
          description="GPU passthrough is supported on this node"
          checked={nvidiaAvailable ?? false}
          onCheckedChange={(checked) => setValue('nvidiaAvailable', checked)}
        />
        {mutation.error && (
          <Alert variant="danger">
            <AlertDescription>{mutation.error.message}</AlertDescription>
          </Alert>
        )}
      </FormPageLayout>
    </form>
  );
}
