"""The collection service: catalog, owned copies, decks, boosters, draft, Trade One."""
