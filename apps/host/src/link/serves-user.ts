// This host's own SERVES_USERS rule, for what the router asks on a user's behalf (terminals,
// overviews, worker tasks): the router checked already, and a host does not rely on it. Empty: all
// the router sends. A bare id means the router's only chat adapter (the router qualifies it so).

export function servesUserRule(servesUsers: readonly string[]): (userId: string) => boolean {
  return (userId) =>
    servesUsers.length === 0 || servesUsers.some((id) => id === userId || userId.endsWith(`:${id}`));
}
