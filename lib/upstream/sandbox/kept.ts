/**
 * A bounded store for what the sandbox has already generated: its data is a
 * pure function of its seed (the account, a day, a name), so a value made
 * once can be handed out again. The least recently used entry goes first
 * once `limit` are kept.
 */
export function keptValues<Value, Key = string>(
  limit: number,
): (key: Key, make: () => Value) => Value {
  const kept = new Map<Key, Value>();
  return (key, make) => {
    const found = kept.get(key);
    if (found !== undefined) {
      kept.delete(key);
      kept.set(key, found);
      return found;
    }
    const made = make();
    kept.set(key, made);
    if (kept.size > limit) kept.delete(kept.keys().next().value ?? key);
    return made;
  };
}
