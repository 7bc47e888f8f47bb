"""The topics a request can name: concrete nouns of the kind the corpus talks about.

Entries are separated by commas: ``singular plural`` (a request names the plural, "write a
poem about horses", as the original's do: tapirs, rocks, horses) or one word for a mass noun
("gold").
A passage may take a topic when either form occurs in it as a whole word, in any case.
The list is ours (the original has 438 entities that were never published as a list).
"""

from __future__ import annotations

import functools
import re

_ENTRIES = """
horse horses, dog dogs, hound hounds, cat cats, lion lions, tiger tigers, wolf wolves, deer,
sheep, lamb lambs, goat goats, ox oxen, cow cows, bull bulls, calf calves, swine, ass asses,
camel camels, mule mules, fox foxes, hare hares, rabbit rabbits, mouse mice, rat rats,
bird birds, eagle eagles, hawk hawks, dove doves, raven ravens, owl owls, swan swans,
goose geese, duck ducks, hen hens, sparrow sparrows, lark larks, nightingale nightingales,
whale whales, fish, shark sharks, serpent serpents, snake snakes, worm worms, bee bees,
butterfly butterflies, spider spiders, frog frogs, turtle turtles, lobster lobsters,
crab crabs, oyster oysters, cattle, beast beasts, tree trees, oak oaks, pine pines,
cedar cedars, palm palms, willow willows, rose roses, lily lilies, flower flowers,
violet violets, grass, leaf leaves, forest forests, garden gardens, field fields,
meadow meadows, hill hills, mountain mountains, valley valleys, river rivers, stream streams,
brook brooks, lake lakes, pond ponds, sea seas, ocean oceans, wave waves, island islands,
shore shores, beach beaches, rock rocks, stone stones, sand, cloud clouds, rain, snow,
storm storms, wind winds, thunder, lightning, star stars, moon moons, sun, sky skies,
fire fires, flame flames, smoke, ice, frost, dew, mist, dust, desert deserts, cave caves,
cliff cliffs, winter winters, summer summers, autumn, harvest harvests, seed seeds,
fruit fruits, apple apples, grape grapes, vine vines, fig figs, olive olives, wheat, corn,
barley, bread, wine, milk, honey, salt, oil, water, house houses, castle castles,
palace palaces, church churches, temple temples, tower towers, wall walls, gate gates,
door doors, window windows, bridge bridges, road roads, street streets, city cities,
town towns, village villages, farm farms, cottage cottages, chamber chambers, hall halls,
kitchen kitchens, cellar cellars, prison prisons, ship ships, boat boats, harbour harbours,
inn inns, mill mills, school schools, market markets, shop shops, tomb tombs, grave graves,
altar altars, throne thrones, tent tents, camp camps, fountain fountains, garment garments,
sword swords, spear spears, shield shields, arrow arrows, gun guns, cannon cannons,
knife knives, axe axes, hammer hammers, rope ropes, chain chains, ring rings, crown crowns,
coin coins, gold, silver, iron, brass, copper, jewel jewels, pearl pearls, diamond diamonds,
book books, letter letters, pen pens, paper papers, ink, map maps, key keys, lock locks,
box boxes, chest chests, cup cups, bowl bowls, plate plates, bottle bottles, glass glasses,
table tables, chair chairs, bed beds, lamp lamps, candle candles, clock clocks,
mirror mirrors, picture pictures, bell bells, drum drums, trumpet trumpets, harp harps,
flute flutes, violin violins, piano pianos, carriage carriages, coach coaches, wagon wagons,
cart carts, wheel wheels, saddle saddles, hat hats, coat coats, glove gloves, shoe shoes,
boot boots, gown gowns, ribbon ribbons, cloak cloaks, veil veils, umbrella umbrellas,
basket baskets, purse purses, handkerchief handkerchiefs, pipe pipes, cigar cigars, tobacco,
tea, coffee, cake cakes, meat, egg eggs, cheese, butter, sugar, soup, pie pies, feast feasts,
king kings, queen queens, prince princes, princess princesses, lady ladies, soldier soldiers,
sailor sailors, captain captains, priest priests, bishop bishops, doctor doctors,
lawyer lawyers, merchant merchants, servant servants, shepherd shepherds, farmer farmers,
hunter hunters, fisherman fishermen, baby babies, child children, mother mothers,
father fathers, brother brothers, sister sisters, widow widows, orphan orphans,
stranger strangers, giant giants, angel angels, devil devils, ghost ghosts, witch witches,
fairy fairies, poet poets, painter painters, thief thieves, beggar beggars, pilgrim pilgrims,
prophet prophets, knight knights, duke dukes, emperor emperors, slave slaves,
governess governesses, clergyman clergymen, neighbour neighbours, guest guests, army armies,
navy navies, crowd crowds, heart hearts, eye eyes, face faces, hair, blood, bone bones,
wing wings, feather feathers, horn horns, tooth teeth, skull skulls, harpoon harpoons,
mast masts, sail sails, deck decks, anchor anchors, oar oars, compass compasses,
lantern lanterns, torch torches, banner banners, flag flags, pillar pillars, statue statues,
painting paintings, portrait portraits, song songs, dance dances, ball balls, party parties,
wedding weddings, funeral funerals, newspaper newspapers, ticket tickets, railway railways,
train trains, cab cabs, chimney chimneys, roof roofs, stair stairs, ladder ladders,
fence fences, hedge hedges, orchard orchards, vineyard vineyards, pasture pastures,
barn barns, stable stables, dungeon dungeons, fortress fortresses, cathedral cathedrals,
chapel chapels, monastery monasteries, library libraries, parlour parlours,
drawing-room drawing-rooms, ballroom ballrooms, shrubbery shrubberies, park parks,
lawn lawns, path paths, lane lanes, mud, marsh marshes, swamp swamps, thorn thorns,
weed weeds, herb herbs, bush bushes, branch branches, root roots, blossom blossoms, bud buds,
acorn acorns, nut nuts, cherry cherries, strawberry strawberries, pear pears, peach peaches,
mushroom mushrooms, cabbage cabbages, potato potatoes, rice, beef, mutton, venison,
pudding puddings, biscuit biscuits, sermon sermons, prayer prayers, psalm psalms,
scroll scrolls, tablet tablets, idol idols, incense, sacrifice sacrifices,
offering offerings, hammock hammocks, blanket blankets, pillow pillows, curtain curtains,
carpet carpets, cushion cushions, sofa sofas, desk desks, drawer drawers, shelf shelves,
cupboard cupboards, kettle kettles, pot pots, pan pans, jar jars, barrel barrels, cask casks,
bucket buckets, needle needles, thread threads, button buttons, pocket pockets,
sleeve sleeves, collar collars, jacket jackets, apron aprons, bonnet bonnets, cap caps,
wig wigs, spectacles, comb combs, brush brushes, soap, perfume perfumes
""".replace("\n", " ").split(",")


@functools.lru_cache(maxsize=None)
def topics() -> dict[str, tuple[str, ...]]:
    """Each topic as a request names it (plural, or the mass noun) -> the forms that match."""
    found: dict[str, tuple[str, ...]] = {}
    for entry in _ENTRIES:
        forms = tuple(entry.split())
        if not forms:
            continue
        name = forms[-1]
        if name in found:
            raise ValueError(f"topic {name!r} is listed twice")
        found[name] = forms
    return found


WORD = re.compile(r"[a-z]+(?:-[a-z]+)*")  # "drawing-room" is one word, "horse-shoe" no horse


@functools.lru_cache(maxsize=None)
def _forms() -> dict[str, str]:
    return {form.lower(): name for name, forms in topics().items() for form in forms}


def mentions(text: str) -> dict[str, int]:
    """How often each topic occurs in ``text`` (either form, whole words, any case)."""
    forms = _forms()
    counts: dict[str, int] = {}
    for word in WORD.findall(text.lower()):
        name = forms.get(word)
        if name is not None:
            counts[name] = counts.get(name, 0) + 1
    return counts
