"""The backend's services: platform (shared plumbing), match, matchmaker, collection, rating."""
