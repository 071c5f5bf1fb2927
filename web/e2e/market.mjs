// Buying at the Auction House as a player does: Buy, then "Yes, buy for N coins".

/** Buys the listing `item` (a locator of its market row). With `secondThoughts` (a
 * function reading what is to be compared, e.g. the player's coins), first presses Buy
 * and "Keep looking", and returns what the page asked, whether the listing still offers
 * its Buy, and what `secondThoughts` read then. */
export async function buy(item, secondThoughts) {
  let kept = null;
  if (secondThoughts) {
    await item.locator("button[name=buy]").click();
    const asked = (await item.locator("button[name=buy-confirm]").textContent()) ?? "";
    await item.locator("button[name=buy-cancel]").click();
    await item.locator("button[name=buy]").waitFor();
    kept = { asked, offered: await item.locator("button[name=buy]").count(), read: await secondThoughts() };
  }
  await item.locator("button[name=buy]").click();
  await item.locator("button[name=buy-confirm]").click();
  return kept;
}
