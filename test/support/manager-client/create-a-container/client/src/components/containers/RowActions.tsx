import { Link } from 'react-router';
import { Button } from '@mieweb/ui';
import { Pencil, Share2, Trash2 } from 'lucide-react';
import { ButtonLink } from '@/components/ButtonLink';
import type { Container } from '@/lib/types';

/** Per-row actions for the containers list: logs, share, edit, delete. */
export function RowActions({
  c,
  siteId,
  onDelete,
  deleting,
  canShare,
  onShare,
}: {
  c: Container;
  siteId?: string;
  onDelete: (id: number) => void;
  deleting: boolean;
  canShare: boolean;
  onShare: (c: Container) => void;
}) {
  return (
    <>
      {c.creationJobId && (
        <ButtonLink as={Link} to={`/jobs/${c.creationJobId}`} variant="ghost" size="sm">
          Logs
        </ButtonLink>
      )}
      {canShare ? (
        <Button variant="ghost" size="sm" leftIcon={<Share2 className="size-4" />} onClick={() => onShare(c)}>
          Share
        </Button>
      ) : null}
      <ButtonLink
        as={Link}
        to={`/sites/${siteId}/containers/${c.id}/edit`}
        variant="ghost"
        size="sm"
        leftIcon={<Pencil className="size-4" />}
      >
        Edit
      </ButtonLink>
      <Button
        variant="ghost"
        size="sm"
        leftIcon={<Trash2 className="size-4" />}
        disabled={deleting}
        onClick={() => window.confirm(`Delete ${c.hostname} and its data?`) && onDelete(c.id)}
      >
        Delete
      </Button>
    </>
  );
}
