// Manager's DockerApi answers task-returning calls with `docker:<kind>:<containerId>`.
// That container ID is the provider ID; it changes when a config update recreates the
// container (env and entrypoint can only be set by recreating).

/** The container ID in a Docker task handle, or null if it is not one (of that kind). */
export function dockerContainerIdOf(task: unknown, expectedKind?: string): string | null {
  if (typeof task !== 'string') return null;
  const parts = task.split(':');
  if (parts[0] !== 'docker' || parts.length < 3) return null;
  if (expectedKind !== undefined && parts[1] !== expectedKind) return null;
  const id = parts.slice(2).join(':');
  return id === '' ? null : id;
}
