// This host's own SERVES_USERS rule, for every frame the router sends on a user's behalf (forwarded
// messages, terminals, overviews, worker tasks): the router checked already, and a host does not
// rely on it. Empty: all the router sends. A bare id means the router's only chat adapter (the
// router qualifies it so).

export function servesUserRule(servesUsers: readonly string[]): (userId: string) => boolean {
  return (userId) =>
    servesUsers.length === 0 || servesUsers.some((id) => id === userId || userId.endsWith(`:${id}`));
}
